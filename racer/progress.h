/* --progress: the race as it goes, on standard error: a live display on a
 * terminal, plain lines otherwise, and a summary line at the end. */
#ifndef RACER_PROGRESS_H
#define RACER_PROGRESS_H

#include "protocol/message.h"

struct event_base;
struct proc;
struct puzzle;

/* After the pool. */
void progress_init(struct event_base *base);
/* A worker's progress report on pz (NULL: its answer is written). */
void progress_message(const struct proc *p, const struct puzzle *pz, const struct msg *m);
/* Erases the live display before anything else is written to the terminal. */
void progress_before_output(void);
void progress_end(void);
/* progress_ms to ask workers for (0: none). */
long progress_interval_ms(void);

#endif
