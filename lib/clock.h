/* The monotonic clock every program measures with: nanoseconds from an
 * arbitrary start (never 0 in practice), milliseconds since such a time,
 * and a delay for a timer. C and C++ (the CUDA host code reads it too). */
#ifndef SUDOKU_CLOCK_H
#define SUDOKU_CLOCK_H

#include <stdint.h>
#include <sys/time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC, in nanoseconds. */
uint64_t now_ns(void);
/* Milliseconds since start (a now_ns() value); 0 when start is 0 (never
 * set). */
double ms_since(uint64_t start_ns);
/* A delay of ms milliseconds as a struct timeval (libevent's timers, say);
 * a negative delay is none. */
struct timeval ms_tv(double ms);

#ifdef __cplusplus
}
#endif

#endif
