/* The line protocol between the racer and its workers (PROTOCOL.md): the
 * one codec both sides use. msg_parse splits any received line into a
 * message, and the msg_read_* functions read a message's fields into a
 * struct, numbers strictly; the msg_write_* functions write every message
 * either side sends, so that no protocol line is put together, or read by
 * hand, anywhere else. */
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
/* Bounds of the numbers a message carries, where PROTOCOL.md leaves them
 * at "fits in 64 bits": a count (count=K, count's K) and a time in ms
 * (limit_ms=, progress_ms=). */
#define PROTO_COUNT_MAX (1L << 50)
#define PROTO_MS_MAX (1L << 40)

enum msg_type {
	MSG_UNKNOWN = 0, /* any other word: ignored by the receiver */
	/* racer -> worker */
	MSG_SOLVE,
	MSG_CANCEL,
	MSG_PING,
	MSG_QUIT,
	MSG_SOLVES,    /* a bulk frame's head (bulk.h) */
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
	MSG_SOLUTIONS, /* a bulk frame's head (bulk.h) */
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
	/* proto=: msg_write_hello writes PROTO_VERSION when 0; msg_read_hello
	 * sets 0 when it is missing or not a whole number */
	long proto;
	bool bulk;              /* bulk=1: it reads and writes bulk frames (bulk.h) */
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
 * " seed=" field (the whole line without its LF when there is none). A
 * racer that keeps a solve to send it several times uses a solve record
 * (msg_solve_record_make, below) instead. */
int msg_write_solve(char *buf, size_t bufsz, const char *id, const struct grid *g,
		    const struct msg_solve_fields *f, size_t *before_seed);
/* A bulk frame's head, "solves N SIDE [fields]" (bulk.h: its records
 * follow); every puzzle of the frame has f's fields. */
int msg_write_solves(char *buf, size_t bufsz, int n, int side, const struct msg_solve_fields *f);
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

/* --- a solve kept to be sent several times ---
 *
 * The racer encodes a puzzle's solve once and sends it to several workers:
 * with its seed= field, or without it to an entry that sets its own seed.
 * The record keeps the one encoded line and where its seed field starts;
 * msg_solve_emit gives the bytes to write for either form. A 9x9 puzzle's
 * line is kept inside the record (no malloc: MSG_SOLVE_SMALL); a larger one
 * is allocated.
 *
 *   struct msg_solve_record rec;
 *   msg_solve_record_init(&rec);
 *   if (msg_solve_record_make(&rec, "17", &grid, &fields) < 0)
 *           ... out of memory (the line never exceeds PROTO_LINE_MAX)
 *   struct msg_span part[2];
 *   int n = msg_solve_emit(&rec, with_seed, part);
 *   for (int i = 0; i < n; i++)
 *           write(fd, part[i].p, part[i].len);
 *   msg_solve_record_clear(&rec);
 */

/* Bytes to write, in place. */
struct msg_span {
	const char *p;
	size_t len;
};

/* Any 9x9 solve with an id of up to 20 characters (the racer's are
 * numbers) fits, every field at its largest. */
#define MSG_SOLVE_SMALL 216

struct msg_solve_record {
	char *line;       /* "solve ID GRID [fields] [seed=S]\n" and a NUL; NULL: none */
	uint32_t len;     /* the whole line, LF included */
	uint32_t seed_at; /* where " seed=S" starts; len - 1 when there is none */
	char small[MSG_SOLVE_SMALL];
};

/* An empty record (no line); a record of zero bytes is one too. */
void msg_solve_record_init(struct msg_solve_record *r);
/* Encodes "solve ID GRID" and f's fields (f may be NULL), the seed last,
 * into r (whatever it held is dropped). id must be a valid id. Returns the
 * line's length, LF included, or -1 when memory ran out (r is then empty). */
int msg_solve_record_make(struct msg_solve_record *r, const char *id, const struct grid *g,
			  const struct msg_solve_fields *f);
/* The line to send, in 1 or 2 parts (returned; 0 for an empty record):
 * with_seed, the whole line; else the line without its " seed=S" (the same
 * when it has none), LF included either way. The parts point into r (and a
 * static "\n"): valid until r changes. Inline: the racer's per-send path. */
static inline int msg_solve_emit(const struct msg_solve_record *r, bool with_seed, struct msg_span part[2])
{
	if (!r->line)
		return 0;
	if (with_seed || r->seed_at + 1 == r->len) {
		part[0] = (struct msg_span){r->line, r->len};
		return 1;
	}
	part[0] = (struct msg_span){r->line, r->seed_at};
	part[1] = (struct msg_span){"\n", 1};
	return 2;
}
/* Frees what r holds; r is empty again. */
void msg_solve_record_clear(struct msg_solve_record *r);

/* --- typed reads ---
 *
 * Each msg_read_* reads the fields of a message msg_parse has split, with
 * strict numbers: decimal digits only (no sign, no blank, no exponent, no
 * trailing byte), within the message's bounds. The strings it gives point
 * into the parsed line. */

/* hello (PROTOCOL.md 5), as the racer reads it: name and version (the two
 * positional words), proto, kind (complete), sizes (min_box-max_box, from
 * GRID_MIN_BOX to GRID_MAX_BOX, min <= max), device ("cpu" when absent),
 * detail (NULL when absent; spaces travel as '_': msg_hello_detail), batch
 * (1 when absent; a positive whole number, one past INT_MAX counts as
 * INT_MAX). Fields it does not know are ignored. Returns 0, or -1 with err
 * naming the first field that is missing or malformed. h->proto is read
 * first and set whatever follows (0: missing or not a whole number, as
 * "proto=1abc"), so that a caller can say which protocol a peer speaks
 * before anything else; whether it speaks PROTO_VERSION is the caller's
 * check. */
int msg_read_hello(const struct msg *m, struct msg_hello *h, char *err, size_t errsz);
/* hello's detail for people: '_' back to spaces, into buf; a detail too
 * long for buf is cut after a word and ends with "...". */
void msg_hello_detail(const char *detail, char *buf, size_t bufsz);

/* solve (PROTOCOL.md 6), as a worker reads it. */
struct msg_solve {
	const char *id;
	const char *grid; /* the grid word, grid_len bytes */
	size_t grid_len;
	/* the fields sent; an absent one is dflt's (has_seed: the seed's) */
	struct msg_solve_fields f;
};
/* Reads a solve (m->type MSG_SOLVE). count from 1 to PROTO_COUNT_MAX,
 * limit_ms and progress_ms from 0 to PROTO_MS_MAX, seed any 64-bit number.
 * Returns 0, or -1 with err ("limit_ms=1x: ...") when a field is not such a
 * number; s->id and s->grid are set either way. */
int msg_read_solve(const struct msg *m, const struct msg_solve_fields *dflt, struct msg_solve *s,
		   char *err, size_t errsz);

/* solve's fields alone, as msg_read_solve reads them (a bulk frame's head
 * has the same). */
int msg_read_solve_fields(const struct msg *m, const struct msg_solve_fields *dflt,
			  struct msg_solve_fields *f, char *err, size_t errsz);

/* s as a decimal number of the protocol: digits only, nothing after, at
 * most max. */
bool msg_number(const char *s, uint64_t max, uint64_t *v);

/* A worker's message about a request (PROTOCOL.md 7), as the racer reads
 * it. The racer's request ids are numbers (it numbers its puzzles). */
struct msg_reply {
	enum msg_type type; /* MSG_PROGRESS, or a final: SOLUTION, UNSAT, COUNT,
			       GAVEUP, CANCELLED, ERROR */
	bool has_id;        /* false for "error - MESSAGE": about no request */
	uint64_t id;
	const char *grid;   /* SOLUTION: the grid; COUNT: its GRID, or NULL */
	size_t grid_len;
	/* SOLUTION from a bulk frame (bulk.h): its cells' values, side * side
	 * bytes, in place of grid (NULL then) */
	const uint8_t *cells;
	int cells_side;
	long count;         /* COUNT: K, from 0 to PROTO_COUNT_MAX */
	const char *reason; /* GAVEUP: REASON; UNSAT, COUNT: reason=; or NULL */
	/* ERROR: the words of its text (the first PROTO_MAX_ARGS), pointing
	 * into the message read; nwords 0 otherwise */
	const char *const *words;
	int nwords;
	bool has_nodes, has_ms;
	uint64_t nodes;     /* nodes=, 0 when absent */
	double ms;          /* ms=, 0 when absent: DIGITS[.DIGITS], no locale */
};

enum msg_read_status {
	MSG_READ_OK = 0,
	/* hello, pong, a racer's message, an unknown type: not a reply */
	MSG_READ_OTHER,
	/* the id is not a decimal number that fits in 64 bits: the message
	 * cannot be one of the racer's requests (PROTOCOL.md 9) */
	MSG_READ_BAD_ID,
	/* the id was read (r->type, r->id set), but K, nodes= or ms= is not a
	 * number as above: the reply is malformed */
	MSG_READ_BAD_FIELD,
};

/* Reads a progress or final message. A progress's own key=value fields
 * stay in m (they are the worker's, shown as sent): only its id is read.
 * err says what is wrong for BAD_ID and BAD_FIELD. The racer's per-answer
 * path: one pass over the fields, no strtod, no allocation. */
enum msg_read_status msg_read_reply(const struct msg *m, struct msg_reply *r, char *err, size_t errsz);

#endif
