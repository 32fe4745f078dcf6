/* --shards: one input file raced in parts, each by a sudoku-race of its
 * own (a racer thread, its presolver processes and its share of the other
 * workers, its cache helpers), started on the part with --byte-range,
 * --line-offset and -j/N; the parts' answers are written in input order,
 * so the output is the one a whole run gives. Where the cuts fall and how
 * many there are is shard_plan.h's. */
#ifndef RACER_SHARD_H
#define RACER_SHARD_H

/* Runs the race in parts when the options and the input call for it (one
 * regular file, no --progress or --stats, more than one part planned for
 * jobs processes). Returns the run's exit status, or -1 when the race is
 * to run whole, in this process (nothing was started). argv: main's, after
 * options_parse. */
int shard_run_if_wanted(char **argv, int jobs);

#endif
