/* The fuzz targets (tests/fuzz/README): each file defines libFuzzer's entry
 * point for one parser of untrusted bytes. Built with --enable-fuzz (clang)
 * they are libFuzzer programs; linked with replay.c they are plain programs
 * that run the kept inputs, which make check does with any compiler. */
#ifndef SUDOKU_FUZZ_H
#define SUDOKU_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash, which the fuzzer keeps as a crasher. */
#define fuzz_check(cond)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                              \
		}                                                                             \
	} while (0)

#endif
