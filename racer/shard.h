/* --shards: the input raced in parts, each by a sudoku-race of its own (a
 * racer thread, its presolver processes and its share of the other
 * workers, its cache helpers): a big file's part with --byte-range and
 * --line-offset, or a run of small files whole, with its share of -j; the
 * parts' answers are written in input order, so the output is the one a
 * whole run gives. Which parts there are is shard_plan.h's. */
#ifndef RACER_SHARD_H
#define RACER_SHARD_H

/* Runs the race in parts when the options and the input call for it
 * (regular files, no --progress or --stats, more than one part planned for
 * jobs processes). Returns the run's exit status, or -1 when the race is
 * to run whole, in this process (nothing was started). argv: main's, after
 * options_parse. */
int shard_run_if_wanted(char **argv, int jobs);

#endif
