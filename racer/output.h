/* Answers in input order (the race hands them over in order), in the
 * puzzle's own notation: one line per puzzle, or a boxed grid (--pretty),
 * or a JSON object (--json). Written from an evbuffer: without blocking
 * when standard output is a pipe (a slow reader must not stop the race);
 * a reader that went away (`| head -1`) ends the run cleanly. */
#ifndef RACER_OUTPUT_H
#define RACER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct puzzle;

struct output_hooks {
	/* about to write to standard output (a terminal's live display goes) */
	void (*before_write)(void);
	/* the reader went away (error false), or a write failed (true, said) */
	void (*closed)(bool error);
	/* what was buffered is written: the input may go on */
	void (*drained)(void);
};

void output_init(struct event_base *base, const struct output_hooks *h);
void output_puzzle(const struct puzzle *pz);
/* Writes what is buffered, blocking (at exit). */
void output_flush_all(void);
/* Bytes waiting to be written: input pauses when too many. */
size_t output_backlog(void);
/* Exit status so far: 1 when an answer written was not a solution. */
int output_status(void);
void output_free(void);

#endif
