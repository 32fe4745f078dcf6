/* What every part of the racer uses: messages, allocation, the clock. */
#ifndef RACER_UTIL_H
#define RACER_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

uint64_t now_ns(void);
double ms_since(uint64_t start_ns);
/* A delay for a libevent timer; a negative one is none. */
struct timeval ms_tv(double ms);

/* A message to standard error, prefixed with the program's name (the
 * live progress display, if any, erased first: util_set_before_message). */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void util_set_before_message(void (*fn)(void));
/* Out of memory or a broken invariant of the system: exit 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* One read(2) of up to most bytes onto buf's end (evbuffer_read reads
 * 4 kB at most). Returns read's result, errno kept. */
struct evbuffer;
ssize_t read_into(struct evbuffer *buf, int fd, size_t most);

/* Writes text from column `at` on, wrapped at words within 80 columns;
 * the lines after the first start with `indent` spaces. */
#include <stdio.h>
void print_wrapped(FILE *f, const char *text, int at, int indent);

#endif
