/* Unit tests: where --shards cuts a file (racer/shard_plan.c). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racer/shard_plan.h"
#include "tap.h"

#define MB ((size_t)1 << 20)

static const char *puzzle9 =
	"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

static const char *block9[] = {
	"+-------+-------+-------+", "| . . . | . . . | . . . |", "| . . . | . . . | . . 1 |",
	"| . . . | . . . | . . . |", "+-------+-------+-------+", "| . . . | . . . | . . . |",
	"| . . . | . . . | . . . |", "| . . . | . . . | . . . |", "+-------+-------+-------+",
	"| . . . | . . . | . . . |", "| . . . | . . . | . . . |", "| . . . | . . . | . . . |",
	"+-------+-------+-------+",
};

struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *line, const char *end)
{
	size_t n = strlen(line) + strlen(end);
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = realloc(t->s, t->cap);
	}
	t->len += (size_t)sprintf(t->s + t->len, "%s%s", line, end);
}

static void add_block(struct text *t)
{
	for (size_t i = 0; i < sizeof block9 / sizeof block9[0]; i++)
		add(t, block9[i], "\n");
}

static long lines_in(const char *s, size_t n)
{
	long l = 0;
	for (size_t i = 0; i < n; i++)
		l += s[i] == '\n';
	return l;
}

/* The parts cover the text in order, none empty, each from a line's start,
 * with the lines before it counted; the line before each cut is a 9x9
 * one-line puzzle. */
static bool sound(const struct text *t, const struct shard_part *p, int n)
{
	if (n < 1 || p[0].from != 0 || p[n - 1].to != t->len)
		return false;
	for (int k = 0; k < n; k++) {
		if (p[k].from >= p[k].to || (k > 0 && p[k].from != p[k - 1].to))
			return false;
		if (p[k].lines != lines_in(t->s, p[k].from))
			return false;
		if (k == 0)
			continue;
		const char *end = t->s + p[k].from - 1, *start = end;
		if (*end != '\n')
			return false;
		while (start > t->s && start[-1] != '\n')
			start--;
		size_t len = (size_t)(end - start);
		if (len && start[len - 1] == '\r')
			len--;
		if (len != 81)
			return false;
	}
	return true;
}

int main(void)
{
	ok(shard_default_count(2, 16 * MB) == 1, "2 processes: one part");
	ok(shard_default_count(16, 16 * MB) == 4, "16 processes: four parts");
	ok(shard_default_count(16, 2 * MB + 1) == 2, "parts of at least 1 MB");
	ok(shard_default_count(64, MB / 2) == 1, "under 1 MB: one part");
	ok(shard_default_count(9, 100 * MB) == 2, "a part for every 4 processes");

	struct shard_span sp[8];
	size_t one[] = {16 * MB};
	int ns = shard_spans(one, 1, 4, sp);
	ok(ns == 1 && sp[0].file == 0 && sp[0].nfiles == 1 && sp[0].cuts == 4, "one file: cut in four");
	size_t mixed[] = {8 * MB, 1000, 2000, 4 * MB, 3 * MB, 100};
	ns = shard_spans(mixed, 6, 4, sp);
	/* a part: 3.75 MB */
	ok(ns == 4, "six files, four parts asked: four spans (%d)", ns);
	ok(sp[0].file == 0 && sp[0].cuts == 2, "a file of two parts' size: cut in two (%d)", sp[0].cuts);
	ok(sp[1].file == 1 && sp[1].nfiles == 2 && sp[1].cuts == 1, "the small ones after it together");
	ok(sp[2].file == 3 && sp[2].nfiles == 1 && sp[2].cuts == 1, "a part's size and a little more: whole");
	ok(sp[3].file == 4 && sp[3].nfiles == 2 && sp[3].cuts == 1,
	   "a little under a part's size: with the small one after it");
	size_t small[] = {300, 300, 300, 300, 300, 300};
	ns = shard_spans(small, 6, 2, sp);
	ok(ns == 2 && sp[0].nfiles == 3 && sp[1].file == 3 && sp[1].nfiles == 3,
	   "small files: together in runs of a part's size");

	struct shard_part p[8];
	struct text t = {0};
	for (int i = 0; i < 1000; i++)
		add(&t, puzzle9, "\n");
	int n = shard_plan(t.s, t.len, 4, p);
	ok(n == 4 && sound(&t, p, n), "1,000 one-line puzzles: four sound parts (%d)", n);
	bool even = true;
	for (int k = 0; k < n; k++)
		even &= p[k].to - p[k].from >= t.len / 4 - 82 && p[k].to - p[k].from <= t.len / 4 + 82;
	ok(even, "of a quarter each, to a line");
	ok(p[1].from == 250 * 82 && p[1].lines == 250, "the second starts at line 251 (%zu, %ld)", p[1].from,
	   p[1].lines);
	n = shard_plan(t.s, 3 * 82, 8, p);
	ok(n == 3 && sound(&(struct text){t.s, 3 * 82, 0}, p, n), "three lines, eight asked: three parts (%d)", n);

	t.len = 0;
	for (int i = 0; i < 300; i++)
		add_block(&t);
	n = shard_plan(t.s, t.len, 4, p);
	ok(n == 1 && p[0].from == 0 && p[0].to == t.len, "block grids only: never cut (%d)", n);

	t.len = 0;
	for (int i = 0; i < 2000; i++)
		add(&t, "1.3..2.3.4..3..4", "\n");
	n = shard_plan(t.s, t.len, 4, p);
	ok(n == 1, "4x4 one-liners (a 16x16 grid's rows too): never cut (%d)", n);

	t.len = 0;
	for (int i = 0; i < 100; i++)
		add(&t, puzzle9, "\n");
	for (int i = 0; i < 20; i++)
		add_block(&t);
	add(&t, "# a comment", "\n");
	add(&t, "", "\n");
	for (int i = 0; i < 100; i++)
		add(&t, puzzle9, "\n");
	n = shard_plan(t.s, t.len, 2, p);
	ok(n == 2 && sound(&t, p, n), "grids and a comment where the cut would fall: cut after them");
	ok(p[1].lines == 100 + 20 * 13 + 2 + 1, "just after the first puzzle past them (%ld)", p[1].lines);

	t.len = 0;
	for (int i = 0; i < 400; i++)
		add(&t, puzzle9, "\r\n");
	t.len--; /* no LF at the end */
	n = shard_plan(t.s, t.len, 3, p);
	ok(n == 3 && sound(&t, p, n), "CRLF lines, the last without its LF: three sound parts");

	free(t.s);
	return tap_done();
}
