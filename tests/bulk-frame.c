/* The tests' hands on bulk frames (PROTOCOL.md 13), with the codec both
 * sides use (protocol/bulk.h):
 *
 *   bulk-frame encode   lines in, each written as it comes: a line
 *                       "frame ID:GRID... [KEY=VALUE...]" becomes a solves
 *                       frame of those records, with those fields;
 *                       "cut N ID:GRID..." a head of N records followed by
 *                       fewer; any other line goes through as it is
 *   bulk-frame decode   a worker's output in: each record of a solutions
 *                       frame becomes "solution ID GRID nodes=N ms=T";
 *                       lines go through as they are
 *
 * A GRID is one character a cell: '.' or '0' blank, 1-9, A-Z for 10-35,
 * '*' a byte of 255 (over any side); the side is the square root of its
 * length. Every line out is flushed at once: the tests talk to workers
 * through these, a line at a time. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/bulk.h"

static int cell_value(char c)
{
	if (c == '.' || c == '0')
		return 0;
	if (c >= '1' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 255;
}

static char cell_char(uint8_t v)
{
	return v == 0 ? '.' : v <= 9 ? (char)('0' + v) : v <= 35 ? (char)('A' + v - 10) : '*';
}

static int side_of(size_t cells)
{
	int side = 1;
	while ((size_t)side * (size_t)side < cells)
		side++;
	return (size_t)side * (size_t)side == cells ? side : -1;
}

/* "frame" or "cut N" lines: the records, after a head of count (0: as
 * many as there are) and the fields. */
static void encode_frame(char *words, int count)
{
	uint8_t *recs = NULL;
	int n = 0, side = 0;
	char fields[512] = "";
	for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) {
		char *colon = strchr(w, ':');
		if (!colon) {
			strncat(fields, " ", sizeof fields - strlen(fields) - 1);
			strncat(fields, w, sizeof fields - strlen(fields) - 1);
			continue;
		}
		*colon = '\0';
		const char *grid = colon + 1;
		side = side_of(strlen(grid));
		if (side < 0) {
			fprintf(stderr, "bulk-frame: %s: not a square grid\n", grid);
			exit(2);
		}
		size_t size = bulk_solve_size(side);
		recs = realloc(recs, (size_t)(n + 1) * size);
		if (!recs)
			exit(2);
		uint8_t *rec = recs + (size_t)n * size;
		uint64_t id = strtoull(w, NULL, 10);
		for (int i = 0; i < 8; i++)
			rec[i] = (uint8_t)(id >> (8 * i));
		for (size_t i = 0; grid[i]; i++)
			rec[8 + i] = (uint8_t)cell_value(grid[i]);
		n++;
	}
	printf("solves %d %d%s\n", count ? count : n, side, fields);
	fwrite(recs, bulk_solve_size(side), (size_t)n, stdout);
	fflush(stdout);
	free(recs);
}

static int encode(void)
{
	char line[65536];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "frame ", 6) == 0) {
			encode_frame(line + 6, 0);
		} else if (strncmp(line, "cut ", 4) == 0) {
			char *rest;
			int count = (int)strtol(line + 4, &rest, 10);
			encode_frame(rest, count);
		} else {
			printf("%s\n", line);
			fflush(stdout);
		}
	}
	return 0;
}

static int decode(void)
{
	char line[65536];
	while (fgets(line, sizeof line, stdin)) {
		if (strncmp(line, "solutions ", 10) != 0) {
			fputs(line, stdout);
			fflush(stdout);
			continue;
		}
		char copy[sizeof line];
		strcpy(copy, line);
		struct msg m;
		struct bulk_head h;
		char err[128];
		if (msg_parse(copy, strcspn(copy, "\n"), &m, err, sizeof err) < 0 ||
		    bulk_read_head(&m, NULL, &h, err, sizeof err) < 0) {
			printf("bulk-frame: a bad head: %s", line);
			return 1;
		}
		size_t size = bulk_solution_size(h.side);
		uint8_t *rec = malloc(size);
		for (int k = 0; k < h.n; k++) {
			if (!rec || fread(rec, size, 1, stdin) != 1) {
				printf("bulk-frame: the frame ends at record %d of %d\n", k + 1, h.n);
				return 1;
			}
			struct msg_reply r;
			bulk_get_solution(rec, h.side, &r);
			printf("solution %" PRIu64 " ", r.id);
			for (int i = 0; i < h.side * h.side; i++)
				putchar(cell_char(r.cells[i]));
			printf(" nodes=%" PRIu64 " ms=%.3f\n", r.nodes, r.ms);
		}
		free(rec);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "encode") == 0)
		return encode();
	if (argc == 2 && strcmp(argv[1], "decode") == 0)
		return decode();
	fprintf(stderr, "usage: bulk-frame encode|decode\n");
	return 2;
}
