/* A fake worker for the racer's tests of bulk frames (PROTOCOL.md 13): it
 * says bulk=1 and answers each solves frame at once with a solutions
 * frame that breaks a rule, as the option says:
 *
 *   --lie          every record a grid that obeys the rules but not the
 *                  puzzle's givens (a wrong answer each)
 *   --badcells     the same with a cell over the side
 *   --stray        one record, for an id the racer never sent
 *   --overcount    a head of one record more than the frame it answers
 *   --cut          a head, then part of a record, then silence (it still
 *                  reads, and quits on quit)
 *   --unannounced  no bulk=1 in its hello, and a solutions frame for
 *                  every solve line
 *   --padded       --lie's frames with heads padded with spaces, before
 *                  and between the words (a head the racer must read)
 *   --longhead     the same padded past the longest head (256 bytes)
 *   --log=FILE     appends "frame N [limit_ms=MS] [seed=S]" or "line" for
 *                  each solves frame or solve line it reads
 *
 * A solve line (a racer with --no-bulk) gets the wrong answer as a line. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/bulk.h"

static const char valid[] = "123456789456789123789123456214365897365897214897214365531642978642978531978531642";

enum mode { LIE, BADCELLS, STRAY, OVERCOUNT, CUT, UNANNOUNCED, PADDED, LONGHEAD };
static enum mode mode = LIE;
static const char *log_path;
static int cut;

/* A line of the log: what it read, and a frame's count and fields. */
static void note(const char *what, const struct bulk_head *h)
{
	if (!log_path)
		return;
	FILE *f = fopen(log_path, "a");
	if (!f)
		return;
	if (h) {
		fprintf(f, "%s %d", what, h->n);
		if (h->f.limit_ms)
			fprintf(f, " limit_ms=%ld", h->f.limit_ms);
		if (h->f.has_seed)
			fprintf(f, " seed=%" PRIu64, h->f.seed);
		fprintf(f, "\n");
	} else {
		fprintf(f, "%s\n", what);
	}
	fclose(f);
}

/* A solutions frame of n records for ids (the head says head_n). */
static void answer(const uint64_t *ids, int n, int head_n)
{
	struct grid *g = grid_new(3);
	for (int i = 0; i < 81; i++)
		g->cell[i] = (uint8_t)(valid[i] - '0');
	if (mode == BADCELLS)
		g->cell[40] = 10;
	char head[BULK_SOLUTIONS_HEAD];
	bulk_write_solutions_head(head, head_n, 9);
	if (mode == PADDED || mode == LONGHEAD)
		printf("%*s", mode == PADDED ? 100 : 300, ""); /* spaces before the type */
	fwrite(head, sizeof head, 1, stdout);
	uint8_t rec[20 + 81];
	const struct msg_effort e = {.nodes = 1, .ms = 0.001};
	for (int k = 0; k < n; k++) {
		bulk_put_solution(rec, ids[k], g, &e);
		if (mode == CUT) {
			fwrite(rec, 10, 1, stdout);
			cut = 1;
			break;
		}
		fwrite(rec, sizeof rec, 1, stdout);
	}
	fflush(stdout);
	free(g);
}

static void solves(char *line)
{
	struct msg m;
	struct bulk_head h;
	char err[128];
	if (msg_parse(line, strlen(line), &m, err, sizeof err) < 0 || bulk_read_head(&m, NULL, &h, err, sizeof err) < 0)
		exit(3);
	note("frame", &h);
	uint64_t ids[BULK_FRAME_MAX];
	size_t size = bulk_solve_size(h.side);
	uint8_t *rec = malloc(size);
	for (int k = 0; k < h.n; k++) {
		if (!rec || fread(rec, size, 1, stdin) != 1)
			exit(0);
		union grid_room cells;
		bulk_get_solve(rec, grid_box_for_side(h.side), &ids[k], &cells.grid, err, sizeof err);
	}
	free(rec);
	if (cut)
		return; /* silent from the first cut on */
	if (mode == STRAY) {
		ids[0] += 1000000;
		answer(ids, 1, 1);
	} else {
		answer(ids, h.n, mode == OVERCOUNT ? h.n + 1 : h.n);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"--lie",	 "--badcells",	  "--stray",  "--overcount",
					    "--cut",	 "--unannounced", "--padded", "--longhead"};
	for (int i = 1; i < argc; i++) {
		for (int k = 0; k < 8; k++)
			if (strcmp(argv[i], names[k]) == 0)
				mode = (enum mode)k;
		if (strncmp(argv[i], "--log=", 6) == 0)
			log_path = argv[i] + 6;
	}
	printf("hello fake-bulk 1 proto=1 kind=complete sizes=3-3 device=cpu%s\n", mode == UNANNOUNCED ? "" : " bulk=1");
	fflush(stdout);
	char line[65536];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "quit") == 0)
			return 0;
		if (strncmp(line, "solves ", 7) == 0) {
			solves(line);
		} else if (strncmp(line, "solve ", 6) == 0) {
			note("line", NULL);
			char *id = line + 6;
			id[strcspn(id, " ")] = '\0';
			if (cut)
				continue;
			if (mode == UNANNOUNCED) {
				uint64_t n = strtoull(id, NULL, 10);
				answer(&n, 1, 1);
			} else {
				printf("solution %s %s nodes=1 ms=0.001\n", id, valid);
				fflush(stdout);
			}
		}
	}
	return 0;
}
