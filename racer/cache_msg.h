/* The messages between the racer and its cache helpers (cache.c, and
 * cache_lmdb.c's reader and writer in their own processes), over a
 * socketpair. OpenBSD's imsg is the model: every message is a fixed header,
 *   type (4 bytes), payload length (4), id (8), in host byte order (both
 *   ends are one program on one machine),
 * then its payload. A reader takes a message only when the whole of it is
 * in, only a type it expects, and only a payload length within that type's
 * bounds (cmsg_get); anything else means the other end is broken, and it
 * is dropped. This file alone writes and reads them. */
#ifndef RACER_CACHE_MSG_H
#define RACER_CACHE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "racer/cache_value.h"

enum cmsg_type {
	/* racer -> reader */
	CM_LOOKUP = 1, /* id: the look-up's seq; the key */
	CM_WALK,       /* every entry, as CM_ENTRY, then CM_WALK_END */
	/* reader -> racer */
	CM_MAPPED,     /* the environment is open: a fault from here on is the file's */
	CM_OPENED,     /* the store is open and checked (struct cmsg_opened) */
	CM_HIT,        /* id: seq; 1 byte (1: worth writing down as a use), the value */
	CM_MISS,       /* id: seq */
	CM_BAD,        /* id: seq; why the stored value cannot be taken (text) */
	CM_ENTRY,      /* the key, the value (empty: too long to be one) */
	CM_WALK_END,   /* no payload */
	/* racer -> writer */
	CM_PUT,        /* the key, the value */
	CM_DELETE,     /* the key */
	CM_TOUCH,      /* the key: used now */
	CM_FLUSH,      /* id: a token; what is queued is committed, then CM_FLUSHED */
	CM_CLEAR,      /* every entry goes; then CM_CLEARED */
	/* writer -> racer */
	CM_WRITTEN,    /* after a commit: entries written, evicted (8 bytes each) */
	CM_FLUSHED,    /* id: the token of the CM_FLUSH */
	CM_CLEARED,    /* entries there were (8 bytes) */
	/* either helper -> racer: the store cannot go on (the helper ends) */
	CM_FAILED,     /* struct cmsg_failed */
	CM_NTYPES
};

#define CMSG_HEADER 16
#define CMSG_TEXT_MAX 1024
/* The bit of a type in a set of types a reader expects. */
#define CMSG_BIT(t) (1u << (t))

struct cmsg {
	uint32_t type, len;
	uint64_t id;
	const uint8_t *data; /* len bytes, in the buffer: valid until its next call */
};

/* Bytes in, or waiting to go out: data[off, len). */
struct cmsg_buf {
	uint8_t *data;
	size_t off, len, cap;
};

/* The store is open: the size limit it keeps, the map this helper has (it
 * may be smaller: the address space it found), and how it was opened. */
struct cmsg_opened {
	uint64_t cap_bytes, map_bytes;
	bool readonly, nolock;
};

/* Why the store cannot go on. */
enum cmsg_fail { CF_ERROR, CF_DAMAGED };
struct cmsg_failed {
	enum cmsg_fail kind;
	char text[CMSG_TEXT_MAX + 1];
};

/* The bounds of each type's payload, in bytes. */
size_t cmsg_min_len(enum cmsg_type t);
size_t cmsg_max_len(enum cmsg_type t);
const char *cmsg_name(uint32_t t);

void cmsg_buf_free(struct cmsg_buf *b);
static inline size_t cmsg_buf_pending(const struct cmsg_buf *b)
{
	return b->len - b->off;
}

/* Appends a message whose payload is a then b (either may be empty). -1
 * (nothing appended) when the payload is out of the type's bounds. */
int cmsg_put(struct cmsg_buf *buf, enum cmsg_type t, uint64_t id, const void *a, size_t alen,
	     const void *b, size_t blen);
void cmsg_put_opened(struct cmsg_buf *buf, const struct cmsg_opened *o);
void cmsg_put_failed(struct cmsg_buf *buf, enum cmsg_fail kind, const char *text);
void cmsg_put_counts(struct cmsg_buf *buf, enum cmsg_type t, uint64_t a, uint64_t b);

/* The next message, if the whole of it is in: 1 (m set), 0 (not yet), -1
 * (a type not in `expect` or a length out of its bounds: broken, and why
 * says how). */
int cmsg_get(struct cmsg_buf *buf, uint32_t expect, struct cmsg *m, char *why, size_t whysz);
/* A message's payload read as its type says; false when it is not one. */
bool cmsg_opened_of(const struct cmsg *m, struct cmsg_opened *o);
bool cmsg_failed_of(const struct cmsg *m, struct cmsg_failed *f);
/* CM_WRITTEN (a, b), CM_CLEARED (a). */
bool cmsg_counts_of(const struct cmsg *m, uint64_t *a, uint64_t *b);
/* The text of CM_BAD, NUL-terminated into out. */
void cmsg_text_of(const struct cmsg *m, char *out, size_t outsz);

/* One read(2) into the buffer: bytes read, 0 at end of file, -1 (errno). */
ssize_t cmsg_read(int fd, struct cmsg_buf *buf);
/* Writes what it can: 1 all out, 0 some left (EAGAIN), -1 (errno). */
int cmsg_write(int fd, struct cmsg_buf *buf);

#endif
