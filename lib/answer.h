/* The answer lines users see: one codec for sudoku-race's output
 * (racer/output.c) and a worker's filter mode (workers/driver_filter.c),
 * and the reader of those lines (sudoku-race cache import). The only
 * writer of the '#' lines and of the --json keys (docs/json.md).
 *
 * One line per puzzle: the solution in the puzzle's own notation, or a line
 * starting with '#' that says why there is none (DESIGN.md, "Puzzle
 * notation"):
 *
 *   kind               text line                          JSON status
 *   ANSWER_SOLVED      the solution (--pretty: a boxed grid)  solved
 *   ANSWER_MULTIPLE    # multiple solutions: [at least ]K  multiple
 *   ANSWER_UNSAT       # unsat                             unsat
 *   ANSWER_CLASH       # unsat: [FILE: ]NOTE               unsat
 *   ANSWER_UNSOLVED    # unsolved                          unsolved
 *   ANSWER_GAVEUP      # gave up: NOTE                     unsolved
 *   ANSWER_WRONG       # error: NOTE                       unsolved
 *   ANSWER_TIMEOUT     # timeout after S s                 timeout
 *   ANSWER_GAVEUP_AFTER # gave up after S s                timeout
 *   ANSWER_INVALID     # invalid: [FILE: ]NOTE             invalid
 *   ANSWER_UNSUPPORTED # unsupported: [FILE: ]NOTE         unsupported
 *
 * JSON's "reason" is the text line after "# " (null when solved), without
 * the file for CLASH, INVALID and UNSUPPORTED (their NOTE alone). JSON
 * strings are valid UTF-8 always: a byte that is not part of valid UTF-8
 * (a Latin-1 file name) is written \ufffd, control characters \u00XX. */
#ifndef SUDOKU_ANSWER_H
#define SUDOKU_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "grid.h"

enum answer_kind {
	ANSWER_SOLVED,
	ANSWER_MULTIPLE,
	ANSWER_UNSAT,
	ANSWER_CLASH,
	ANSWER_UNSOLVED,
	ANSWER_GAVEUP,
	ANSWER_WRONG,
	ANSWER_TIMEOUT,
	ANSWER_GAVEUP_AFTER,
	ANSWER_INVALID,
	ANSWER_UNSUPPORTED,
};

/* JSON's "unique", written with SOLVED and MULTIPLE. */
enum answer_unique { ANSWER_UNIQUE_UNKNOWN, ANSWER_UNIQUE_YES, ANSWER_UNIQUE_NO };

/* One worker's part in a race, for the racer's "workers" array. */
struct answer_attempt {
	const char *worker;  /* the --workers entry */
	const char *outcome; /* "won", "cancelled", ... */
	double ms;           /* its own ms=; written when > 0 */
};

/* The racer's own JSON keys (a lone worker has none of them). */
struct answer_race {
	/* --count: "count" and "count_limit", with SOLVED, MULTIPLE, UNSAT
	 * and CLASH */
	bool counted;
	/* "confirmed" and "provers": with UNSAT and CLASH, and with SOLVED
	 * and MULTIPLE when counted */
	bool confirmed;
	const char *provers; /* NULL or "": null */
	bool cache;
	const char *stage;   /* "none", "presolver", "escalated", "all" */
	const struct answer_attempt *workers;
	int nworkers;
};

/* One puzzle's answer: what the racer (racer/output.c) and a worker's
 * filter mode (workers/driver_filter.c) fill, and the codec writes. */
struct answer {
	enum answer_kind kind;
	const char *file;            /* the input file; NULL: standard input */
	long line;                   /* the puzzle's (first) line in it */
	const struct grid *puzzle;   /* NULL: none (INVALID) */
	const struct notation *nt;   /* the puzzle's, in which grids are written */
	const struct grid *solution; /* SOLVED, MULTIPLE (one of them); else NULL */
	/* CLASH, INVALID, UNSUPPORTED: why, "line N: ..."; GAVEUP: why (NULL
	 * or "": "no solution found"); WRONG: "cp gave a wrong answer (...)" */
	const char *note;
	long count;       /* MULTIPLE (and JSON's "count"): solutions found */
	long count_limit; /* --count=K: K; MULTIPLE says "at least K" when count >= K */
	double seconds;   /* TIMEOUT, GAVEUP_AFTER: the time limit */
	/* --json only */
	enum answer_unique unique;
	const char *winner;          /* the worker that decided it; NULL: null */
	double worker_ms, ms;
	const struct answer_race *race; /* NULL: a lone worker's keys only */
};

/* Text built up in memory, answers appended: p[len] is a NUL. */
struct answer_buf {
	char *p;
	size_t len, cap;
};

/* Room for more bytes (and a NUL) at o->p + o->len; NULL when memory ran
 * out (o is unchanged). */
char *answer_buf_grow(struct answer_buf *o, size_t more);
static inline char *answer_buf_room(struct answer_buf *o, size_t more)
{
	return o->len + more + 1 <= o->cap ? o->p + o->len : answer_buf_grow(o, more);
}
void answer_buf_free(struct answer_buf *o);

/* True when the answer is not a solution: exit status 1. */
bool answer_failed(const struct answer *a);
/* JSON's "status" of a kind. */
const char *answer_status(enum answer_kind kind);

/* Appends the answer's text line, LF included; pretty: a SOLVED answer as
 * a boxed grid (the '#' lines are the same). Returns 0, or -1 when memory
 * ran out. */
int answer_write_text(struct answer_buf *o, const struct answer *a, bool pretty);
/* Appends the answer's JSON object on one line, LF included: the keys in
 * docs/json.md's order. Returns 0, or -1 when memory ran out. */
int answer_write_json(struct answer_buf *o, const struct answer *a);
/* Appends s as a JSON string: quoted, escaped, valid UTF-8. */
int answer_write_json_string(struct answer_buf *o, const char *s);

/* What an answer line says: the reader of answer_write_text's lines (not
 * of --pretty's grids). */
struct answer_read {
	enum answer_kind kind;
	/* SOLVED: the solution's text; CLASH, INVALID, UNSUPPORTED, GAVEUP,
	 * WRONG: what follows "word: " (the file, if any, included) */
	const char *text;
	size_t len;
	long count;    /* MULTIPLE: K (0 when the line gives none) */
	bool at_least; /* MULTIPLE: "at least K" */
	double seconds; /* TIMEOUT, GAVEUP_AFTER */
};

/* Reads one line (len bytes; a trailing LF or CR LF is ignored). Returns
 * 0, or -1 when it is not an answer line: empty, or a '#' line of another
 * kind (a comment). */
int answer_parse(const char *line, size_t len, struct answer_read *r);

#endif
