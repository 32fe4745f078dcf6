/* Which parts --shards makes of the input (the policy; shard.h runs them):
 * about -j/4 of them, each a run of whole files or a part of one big file.
 * A file's part starts after a line that is a one-line puzzle of 9x9 or
 * more: such a line ends any grid the reader may have had in progress, so
 * a racer reading from there sees the puzzles one reading the whole file
 * would, numbered the same once given the lines before. */
#ifndef RACER_SHARD_PLAN_H
#define RACER_SHARD_PLAN_H

#include <stdbool.h>
#include <stddef.h>

struct shard_part {
	int file, nfiles; /* the input's FILEs [file, file + nfiles) */
	bool ranged;      /* bytes [from, to) of the one file (else whole files) */
	bool to_end;      /* ranged: the file's last part (read to its end) */
	size_t from, to;
	long lines;       /* the file's lines before from */
	size_t bytes;     /* its share of the input */
};

/* A run of the input's files: nfiles whole ones, or one cut into cuts
 * parts. */
struct shard_span {
	int file, nfiles, cuts;
};

/* The parts the default makes of size bytes with jobs processes: one per
 * SHARD_JOBS presolver processes, each at least SHARD_MIN_BYTES. */
int shard_default_count(int jobs, size_t size);

/* The files of sizes[n] in spans of about their total over want bytes: a
 * file of that size or more is cut into parts of about it, smaller ones
 * go together until they reach it. Returns the number of spans (at most
 * n); their cuts add up to about want. */
int shard_spans(const size_t *sizes, int n, int want, struct shard_span *spans);

/* Cuts data[0, size) into at most want parts (parts[want]) of about equal
 * size, each starting at a line that may start one (above): their from,
 * to and lines. Returns the number of parts made, 1 when no cut fits. */
int shard_plan(const char *data, size_t size, int want, struct shard_part *parts);

#endif
