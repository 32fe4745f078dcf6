/* The line protocol between the racer and its workers (PROTOCOL.md): the
 * one codec both sides use. msg_parse reads any received line into a
 * message; the msg_write_* functions write every message either side sends,
 * so that no protocol line is put together anywhere else. */
#ifndef SUDOKU_MESSAGE_H
#define SUDOKU_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/grid.h"

#define PROTO_VERSION 1
/* Longest line either side may send, LF included (PROTOCOL.md "Limits"). */
#define PROTO_LINE_MAX 65536
/* Longest request id. */
#define PROTO_ID_MAX 64
/* Most solve requests a worker keeps waiting in its queue (PROTOCOL.md
 * "Limits"); one more is answered "error ID queue full" at once. */
#define PROTO_QUEUE_MAX 65536
/* Most positional arguments and key=value fields a message may carry. */
#define PROTO_MAX_ARGS 8
#define PROTO_MAX_FIELDS 32

enum msg_type {
	MSG_UNKNOWN = 0, /* any other word: ignored by the receiver */
	/* racer -> worker */
	MSG_SOLVE,
	MSG_CANCEL,
	MSG_PING,
	MSG_QUIT,
	/* worker -> racer */
	MSG_HELLO,
	MSG_PROGRESS,
	MSG_SOLUTION,
	MSG_UNSAT,
	MSG_COUNT,
	MSG_GAVEUP,
	MSG_CANCELLED,
	MSG_PONG,
	MSG_ERROR,
};

struct msg_field {
	const char *key;
	const char *value;
};

/* A parsed message. Strings point into the line given to msg_parse, which
 * is split in place. For messages about a puzzle, id is the request id;
 * args are the positional words after it (after the type for hello, ping,
 * pong); fields are the key=value words, in order. */
struct msg {
	enum msg_type type;
	const char *word; /* the message type as sent */
	const char *id;
	int argc;
	const char *argv[PROTO_MAX_ARGS];
	int nfields;
	struct msg_field fields[PROTO_MAX_FIELDS];
};

/* Splits line (len bytes, no LF; changed in place, needs room for a NUL at
 * line[len]) into msg. Returns 0, or -1 with a message in err when the line
 * is malformed: empty, a control character, a missing or bad id, too many
 * words. An unknown type is not an error: type is MSG_UNKNOWN. */
int msg_parse(char *line, size_t len, struct msg *m, char *err, size_t errsz);

/* The value of field key, or NULL. */
const char *msg_field(const struct msg *m, const char *key);

/* True when s is a valid request id: 1..PROTO_ID_MAX-1 bytes of
 * [A-Za-z0-9_.:-]. */
bool msg_valid_id(const char *s);

/* The canonical one-token form of a grid in the protocol: characters ('.'
 * blank, 1-9A-Z) up to side 35, comma-separated numbers (0 blank) above.
 * grid_parse reads both. Returns the length or -1 if buf is too small. */
int msg_format_grid(const struct grid *g, char *buf, size_t bufsz);

/* Reads a grid word in either of msg_format_grid's forms, for a grid of box
 * size box (known from the puzzle it answers). Returns 0, or -1 when the
 * word is not such a grid (grid_parse can then say why). */
int msg_parse_grid(const char *word, size_t len, int box, struct grid *g);

/* A number field's value: dflt when the field is absent; sets *bad when it
 * is present but not a decimal number in [min, max]. */
long msg_field_long(const struct msg *m, const char *key, long dflt, long min, long max, bool *bad);
/* The same for an unsigned 64-bit field (seed=). */
uint64_t msg_field_u64(const struct msg *m, const char *key, uint64_t dflt, bool *bad);

/* --- writing ---
 *
 * Each msg_write_* writes one whole line, LF included, at buf (bufsz
 * bytes; a NUL follows the LF) and returns its length, or -1 when it does
 * not fit (PROTO_LINE_MAX bytes always do). Ids and tokens must be valid
 * ids (msg_valid_id); free text (an error's message, hello's detail) is
 * made safe: control characters become '?', and in a word spaces become
 * '_'. */

/* hello's fields (PROTOCOL.md 5). */
struct msg_hello {
	const char *name, *version;
	bool complete;          /* kind=complete, else stochastic */
	int min_box, max_box;   /* sizes=MIN-MAX */
	const char *device;     /* cpu, gpu or none */
	const char *detail;     /* NULL or "": no detail field */
	int batch;              /* 0: no batch field */
};

/* solve's optional fields; 0 (false for seed) leaves a field out. The seed
 * comes last, so that a line can be sent without it (see before_seed). */
struct msg_solve_fields {
	long count;       /* written when >= 2 */
	long limit_ms;
	long progress_ms;
	bool has_seed;
	uint64_t seed;
};

/* The search effort of a final message: nodes=N ms=T. */
struct msg_effort {
	uint64_t nodes;
	double ms;
};

int msg_write_hello(char *buf, size_t bufsz, const struct msg_hello *h);
/* before_seed, when not NULL, gets the length of the line before its
 * " seed=" field (the whole line without its LF when there is none). */
int msg_write_solve(char *buf, size_t bufsz, const char *id, const struct grid *g,
		    const struct msg_solve_fields *f, size_t *before_seed);
int msg_write_cancel(char *buf, size_t bufsz, const char *id);
int msg_write_ping(char *buf, size_t bufsz, const char *token);
int msg_write_pong(char *buf, size_t bufsz, const char *token);
int msg_write_quit(char *buf, size_t bufsz);
/* fields: space-separated key=value words, no newline (the algorithm's). */
int msg_write_progress(char *buf, size_t bufsz, const char *id, const char *fields);
int msg_write_solution(char *buf, size_t bufsz, const char *id, const struct grid *solution,
		       const struct msg_effort *e);
/* effort and reason may be NULL (a clash is found before any search). */
int msg_write_unsat(char *buf, size_t bufsz, const char *id, const struct msg_effort *e,
		    const char *reason);
/* solution: NULL when k is 0. effort and reason may be NULL. */
int msg_write_count(char *buf, size_t bufsz, const char *id, long k, const struct grid *solution,
		    const struct msg_effort *e, const char *reason);
/* reason: one word; ms < 0 leaves ms= out. */
int msg_write_gaveup(char *buf, size_t bufsz, const char *id, const char *reason, double ms);
int msg_write_cancelled(char *buf, size_t bufsz, const char *id);
/* id NULL: "error - TEXT", about no request. */
int msg_write_error(char *buf, size_t bufsz, const char *id, const char *text);

#endif
