/* Messages, allocation and the clock for the racer's parts (util.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WIDTH 80

#include <event2/buffer.h>

#include "racer/options.h"
#include "racer/util.h"

static void (*before_message)(void);

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double ms_since(uint64_t start)
{
	return start ? (double)(now_ns() - start) / 1e6 : 0.0;
}

struct timeval ms_tv(double ms)
{
	if (ms < 0)
		ms = 0;
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((long)(ms * 1000) % 1000000)};
	return tv;
}

void util_set_before_message(void (*fn)(void))
{
	before_message = fn;
}

void warn(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || opt.quiet)
		return;
	if (before_message)
		before_message();
	fprintf(stderr, "%s: %s\n", PROGRAM, buf);
}

void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", PROGRAM);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die("out of memory");
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die("out of memory");
	return p;
}

ssize_t read_into(struct evbuffer *buf, int fd, size_t most)
{
	struct evbuffer_iovec v;
	if (evbuffer_reserve_space(buf, (ev_ssize_t)most, &v, 1) < 1)
		die("out of memory");
	ssize_t n = read(fd, v.iov_base, most < v.iov_len ? most : v.iov_len);
	int saved = errno;
	v.iov_len = n > 0 ? (size_t)n : 0;
	evbuffer_commit_space(buf, &v, 1);
	errno = saved;
	return n;
}

/* Wrapped at spaces before WIDTH; a word longer than a line is cut where
 * the line ends (there is no better place). */
void print_wrapped(FILE *f, const char *text, int at, int indent)
{
	int room = WIDTH - at;
	while (*text) {
		int len = (int)strlen(text);
		if (len <= room) {
			fprintf(f, "%s\n", text);
			return;
		}
		/* after a comma or semicolon when one is in the line's second
		 * half (a figure stays with its words), else at a space; a line
		 * cut at a word ends before the last column, so that one that
		 * fills it was cut inside a word (a reader can join them back) */
		int cut = room - 1;
		while (cut > room / 2 && !(text[cut] == ' ' && (text[cut - 1] == ',' || text[cut - 1] == ';')))
			cut--;
		if (cut == room / 2) {
			cut = room - 1;
			while (cut > 0 && text[cut] != ' ')
				cut--;
		}
		if (cut == 0)
			cut = room; /* one long word */
		fprintf(f, "%.*s\n%*s", cut, text, indent, "");
		text += cut;
		while (*text == ' ')
			text++;
		room = WIDTH - indent;
	}
}
