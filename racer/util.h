/* What the racer's parts use beside the common library (lib/common.h:
 * messages, allocation; lib/clock.h; lib/wrap.h): reads into an evbuffer,
 * the program's path, a watch on standard output, standard output made
 * nonblocking. */
#ifndef RACER_UTIL_H
#define RACER_UTIL_H

#include <stdbool.h>
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
/* read_into from a nonblocking pipe, in its read event: the bytes read,
 * 0 at its end (an error is the same to its reader), -1 when there is
 * nothing now (EAGAIN, EINTR). */
ssize_t read_pipe(struct evbuffer *buf, int fd, size_t most);

/* This program's own path (/proc/self/exe) into self, of PATH_MAX bytes:
 * false when it cannot be read. */
bool self_path(char *self);

/* The reader of standard output gone (`sudoku-race big.txt | head -1`): a
 * write says so with EPIPE, but the next answer may be minutes away while
 * every worker runs on. A pipe or socket is looked at a few times a second
 * (poll says POLLERR or POLLHUP once its other end is closed) and gone()
 * called then (every time, until the event is deleted). NULL when standard
 * output is neither. One a process. */
#define STDOUT_WATCH_MS 100
struct event_base;
struct event *stdout_watch_new(struct event_base *base, void (*gone)(void));
/* Standard output, when a pipe or socket, made O_NONBLOCK (a full one then
 * waits on a write event, not in write(2)): its flags before, for
 * stdout_restore, or -1 when it was left as it is. */
int stdout_nonblock(void);
void stdout_restore(int flags); /* -1: nothing */

/* print_wrapped for the racer's messages: from column at, lines after the
 * first from indent, broken after a clause where one ends late enough. */
static inline void racer_wrapped(FILE *f, const char *text, int at, int indent)
{
	print_wrapped(f, text, (struct wrap){.at = at, .indent = indent, .clauses = true});
}

#endif
