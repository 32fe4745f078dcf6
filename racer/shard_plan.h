/* Where --shards cuts an input file, and into how many parts (the policy;
 * shard.h runs the parts). A part starts after a line that is a one-line
 * puzzle of 9x9 or more: such a line ends any grid the reader may have had
 * in progress, so a racer reading from there sees the puzzles one reading
 * the whole file would, numbered the same once given the lines before. */
#ifndef RACER_SHARD_PLAN_H
#define RACER_SHARD_PLAN_H

#include <stddef.h>

struct shard_part {
	size_t from, to; /* bytes [from, to) of the file */
	long lines;      /* the file's lines before from */
};

/* The parts the default makes of size bytes with jobs processes: one per
 * SHARD_JOBS presolver processes, each at least SHARD_MIN_BYTES. */
int shard_default_count(int jobs, size_t size);

/* Cuts data[0, size) into at most want parts (parts[want]) of about equal
 * size, each starting at a line that may start one (above). Returns the
 * number of parts made, 1 when no cut fits. */
int shard_plan(const char *data, size_t size, int want, struct shard_part *parts);

#endif
