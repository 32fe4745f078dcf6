/* What the racer's parts use beside the common library (lib/common.h:
 * messages, allocation; lib/clock.h; lib/wrap.h): one read into an
 * evbuffer, a watch on standard output. */
#ifndef RACER_UTIL_H
#define RACER_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/clock.h"
#include "lib/common.h"
#include "lib/wrap.h"

/* The racer's name in its messages. */
#define PROGRAM "sudoku-race"

/* One read(2) of up to most bytes onto buf's end (evbuffer_read reads
 * 4 kB at most). Returns read's result, errno kept. */
struct evbuffer;
ssize_t read_into(struct evbuffer *buf, int fd, size_t most);
/* The same with pread(2) at offset at (the file's offset stays). */
ssize_t pread_into(struct evbuffer *buf, int fd, size_t most, off_t at);

/* The reader of standard output gone (`sudoku-race big.txt | head -1`): a
 * write says so with EPIPE, but the next answer may be minutes away while
 * every worker runs on. A pipe or socket is looked at a few times a second
 * (poll says POLLERR or POLLHUP once its other end is closed) and gone()
 * called then (every time, until the event is deleted). NULL when standard
 * output is neither. One a process. */
#define STDOUT_WATCH_MS 100
struct event_base;
struct event *stdout_watch_new(struct event_base *base, void (*gone)(void));

/* print_wrapped for the racer's messages: from column at, lines after the
 * first from indent, broken after a clause where one ends late enough. */
static inline void racer_wrapped(FILE *f, const char *text, int at, int indent)
{
	print_wrapped(f, text, (struct wrap){.at = at, .indent = indent, .clauses = true});
}

#endif
