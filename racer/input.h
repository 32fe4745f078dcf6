/* Puzzles from the input files (or standard input) into the race, through
 * the same puzzle_stream reader the workers use: a pipe or a terminal is
 * read when the loop says it is readable, so a slow producer never blocks
 * the racer; a regular file is read a chunk per loop turn. Reading pauses
 * while the owner says there is no room, and resumes on input_resume. */
#ifndef RACER_INPUT_H
#define RACER_INPUT_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;

struct input_hooks {
	/* Is there room for this many more puzzles? */
	bool (*can_take)(uint64_t n);
	/* An input could not be read (said already): exit status 2 at the end. */
	void (*failed)(void);
	/* The input is all read. */
	void (*ended)(void);
};

void input_init(struct event_base *base, char **names, int n, const struct input_hooks *h);
void input_start(void);
/* For good: the run is ending. */
void input_stop(void);
/* Room again: reading goes on, if it paused. */
void input_resume(void);
bool input_done(void);
/* Where the reading is: the input's index among names (0 for standard
 * input alone) and its last line read. */
void input_position(int *index, long *line);
void input_free(void);

#endif
