/* The line protocol between the racer and its workers (PROTOCOL.md): parsing
 * a received line into a message, and writing messages. */
#ifndef SUDOKU_MESSAGE_H
#define SUDOKU_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "grid.h"

#define PROTO_VERSION 1
/* Longest line either side may send, LF included (PROTOCOL.md "Limits"). */
#define PROTO_LINE_MAX 65536
/* Longest request id. */
#define PROTO_ID_MAX 64
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

const char *msg_type_name(enum msg_type t);

#endif
