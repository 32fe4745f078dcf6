/* The common library: what every program does the same way around its own
 * work. Messages on standard error under the program's name, errors that
 * end the program (exit status 2), allocation that cannot fail, usage
 * errors and --version. The clock, number parsing and wrapped text have
 * headers of their own (clock.h, number.h, wrap.h). */
#ifndef SUDOKU_COMMON_H
#define SUDOKU_COMMON_H

#include <stdbool.h>
#include <stddef.h>

/* The program's name, as every message starts: "sudoku-race", "sudoku-cp".
 * Set once at the start by common_set_program, read anywhere. */
extern const char *program;
void common_set_program(const char *name);

/* A function warn() calls before it writes (the racer's erases its live
 * progress display, so that the message is not drawn over); NULL: none. */
void common_set_before_message(void (*fn)(void));
/* warn() says nothing from here on (a program's -q); die() still does. */
void common_set_quiet(bool quiet);

/* "PROGRAM: MESSAGE" on standard error. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exit status 2: out of memory, or the system failed us. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* malloc, calloc, realloc and strdup that die("out of memory") rather than
 * return NULL. A size of 0 allocates a byte (never NULL). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* A bad command line: "PROGRAM: MESSAGE" and "Try 'PROGRAM --help' for more
 * information." on standard error, exit status 2. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The second line alone, exit status 2: getopt has said what was wrong. */
void usage_try_help(void) __attribute__((noreturn));

/* --version: "PROGRAM (sudoku-race) VERSION", the copyright and where to
 * report bugs, on standard output. */
void print_version(void);

#endif
