/* The common library's messages, errors and allocation (common.h). */
#include "config.h"

#include "common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *program = PACKAGE_NAME;

static void (*before_message)(void);
static bool quiet;

void common_set_program(const char *name)
{
	program = name;
}

void common_set_before_message(void (*fn)(void))
{
	before_message = fn;
}

void common_set_quiet(bool q)
{
	quiet = q;
}

void warn(const char *fmt, ...)
{
	if (quiet)
		return;
	/* formatted first, so that the hook runs only for a message */
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (before_message)
		before_message();
	fprintf(stderr, "%s: %s\n", program, buf);
}

/* "program: message" on standard error, unbuffered as it is. */
static void say(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", program);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
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
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		die("out of memory");
	return p;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	usage_try_help();
}

void usage_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program);
	exit(2);
}

void print_version(void)
{
	printf("%s (%s) %s\n%s\n", program, PACKAGE_NAME, PACKAGE_VERSION, VERSION_NOTICE);
}
