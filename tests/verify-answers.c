/* verify-answers PUZZLES ANSWERS: the tests' independent check of a
 * program's output. Reads the puzzles (any notation) and the answer lines
 * (one per puzzle, in order) and prints one line per puzzle:
 *   ok                      the answer is a solution (rules and givens)
 *   none: # ...             the answer is a '#' line
 *   WRONG: why              the answer is not a solution of the puzzle
 * then "N ok, M none, K wrong". Exit status 0 when nothing is wrong and the
 * counts match, 1 otherwise, 2 for usage errors. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/puzzle_stream.h"

static char *read_line(FILE *f, char *buf, size_t size)
{
	if (!fgets(buf, (int)size, f))
		return NULL;
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: verify-answers PUZZLES ANSWERS\n");
		return 2;
	}
	FILE *pf = fopen(argv[1], "r"), *af = fopen(argv[2], "r");
	if (!pf || !af) {
		perror("verify-answers");
		return 2;
	}
	static char line[PUZZLE_LINE_MAX + 2], answer[PUZZLE_LINE_MAX + 2];
	static struct puzzle_stream ps;
	static struct stream_item item;
	long lineno = 0, good = 0, none = 0, wrong = 0;
	bool done = false;
	puzzle_stream_init(&ps);
	while (!done) {
		enum stream_event ev;
		bool again = false;
		if (read_line(pf, line, sizeof line)) {
			lineno++;
			ev = puzzle_stream_feed(&ps, line, strlen(line), lineno, &item, &again);
		} else {
			ev = puzzle_stream_finish(&ps, &item);
			done = true;
		}
		for (;;) {
			if (ev != STREAM_NONE) {
				if (!read_line(af, answer, sizeof answer)) {
					printf("WRONG: no answer for the puzzle of line %ld\n", item.line);
					wrong++;
				} else if (answer[0] == '#') {
					printf("none: %s\n", answer);
					none++;
				} else if (ev == STREAM_INVALID) {
					printf("WRONG: an answer to an invalid puzzle (%s)\n", item.error);
					wrong++;
				} else {
					union grid_room sol_room;
					struct grid *sol = &sol_room.grid;
					struct notation nt;
					char err[GRID_ERR_MAX];
					if (grid_parse(answer, strlen(answer), sol, &nt, err, sizeof err) < 0) {
						printf("WRONG: line %ld: %s\n", item.line, err);
						wrong++;
					} else if (!grid_verify(&item.grid, sol, err, sizeof err)) {
						printf("WRONG: line %ld: %s\n", item.line, err);
						wrong++;
					} else {
						printf("ok\n");
						good++;
					}
				}
			}
			if (!again)
				break;
			ev = puzzle_stream_feed(&ps, line, strlen(line), lineno, &item, &again);
		}
	}
	if (read_line(af, answer, sizeof answer)) {
		printf("WRONG: more answers than puzzles\n");
		wrong++;
	}
	printf("%ld ok, %ld none, %ld wrong\n", good, none, wrong);
	return wrong ? 1 : 0;
}
