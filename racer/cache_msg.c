/* The cache helpers' messages (cache_msg.h): the one writer and reader. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "racer/cache_msg.h"

/* Read at most this much a call: a batch of replies comes in a few reads. */
#define READ_CHUNK 65536
#define COUNTS_LEN 16

static const struct {
	const char *name;
	size_t min, max; /* max 0: cmsg_max_len works it out */
} types[CM_NTYPES] = {
	[CM_LOOKUP] = {"lookup", CACHE_KEY_LEN, CACHE_KEY_LEN},
	[CM_WALK] = {"walk", 0, 0},
	[CM_MAPPED] = {"mapped", 0, 0},
	[CM_OPENED] = {"opened", 17, 17},
	[CM_HIT] = {"hit", 1, 0},
	[CM_MISS] = {"miss", 0, 0},
	[CM_BAD] = {"bad", 1, 256},
	[CM_ENTRY] = {"entry", CACHE_KEY_LEN, 0},
	[CM_WALK_END] = {"walk end", 0, 0},
	[CM_PUT] = {"put", CACHE_KEY_LEN + CACHE_HEADER_V1, 0},
	[CM_DELETE] = {"delete", CACHE_KEY_LEN, CACHE_KEY_LEN},
	[CM_TOUCH] = {"touch", CACHE_KEY_LEN, CACHE_KEY_LEN},
	[CM_FLUSH] = {"flush", 0, 0},
	[CM_CLEAR] = {"clear", 0, 0},
	[CM_WRITTEN] = {"written", COUNTS_LEN, COUNTS_LEN},
	[CM_FLUSHED] = {"flushed", 0, 0},
	[CM_CLEARED] = {"cleared", COUNTS_LEN, COUNTS_LEN},
	[CM_FAILED] = {"failed", 2, 1 + CMSG_TEXT_MAX},
};

static bool known(uint32_t t)
{
	return t > 0 && t < CM_NTYPES;
}

const char *cmsg_name(uint32_t t)
{
	return known(t) ? types[t].name : "unknown";
}

size_t cmsg_min_len(enum cmsg_type t)
{
	return known(t) ? types[t].min : 0;
}

size_t cmsg_max_len(enum cmsg_type t)
{
	if (!known(t))
		return 0;
	switch (t) {
	case CM_HIT:
		return 1 + cache_value_max();
	case CM_ENTRY:
	case CM_PUT:
		return CACHE_KEY_LEN + cache_value_max();
	default:
		return types[t].max;
	}
}

void cmsg_buf_free(struct cmsg_buf *b)
{
	free(b->data);
	*b = (struct cmsg_buf){0};
}

/* Room for n more bytes at the end; what was taken is let go first. */
static void reserve(struct cmsg_buf *b, size_t n)
{
	if (b->off == b->len) {
		b->off = b->len = 0;
	} else if (b->off && b->len + n > b->cap) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d) {
		fprintf(stderr, "sudoku-race: out of memory\n");
		abort();
	}
	b->data = d;
	b->cap = cap;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int cmsg_put(struct cmsg_buf *buf, enum cmsg_type t, uint64_t id, const void *a, size_t alen,
	     const void *b, size_t blen)
{
	size_t len = alen + blen;
	if (!known(t) || len < cmsg_min_len(t) || len > cmsg_max_len(t))
		return -1;
	reserve(buf, CMSG_HEADER + len);
	uint8_t *p = buf->data + buf->len;
	put_u32(p, (uint32_t)t);
	put_u32(p + 4, (uint32_t)len);
	put_u64(p + 8, id);
	if (alen)
		memcpy(p + CMSG_HEADER, a, alen);
	if (blen)
		memcpy(p + CMSG_HEADER + alen, b, blen);
	buf->len += CMSG_HEADER + len;
	return 0;
}

void cmsg_put_opened(struct cmsg_buf *buf, const struct cmsg_opened *o)
{
	uint8_t p[17];
	put_u64(p, o->cap_bytes);
	put_u64(p + 8, o->map_bytes);
	p[16] = (uint8_t)((o->readonly ? 1 : 0) | (o->nolock ? 2 : 0));
	cmsg_put(buf, CM_OPENED, 0, p, sizeof p, NULL, 0);
}

void cmsg_put_failed(struct cmsg_buf *buf, enum cmsg_fail kind, const char *text)
{
	uint8_t k = (uint8_t)kind;
	size_t n = strnlen(text, CMSG_TEXT_MAX);
	if (n == 0) {
		text = "?";
		n = 1;
	}
	cmsg_put(buf, CM_FAILED, 0, &k, 1, text, n);
}

void cmsg_put_counts(struct cmsg_buf *buf, enum cmsg_type t, uint64_t a, uint64_t b)
{
	uint8_t p[COUNTS_LEN];
	put_u64(p, a);
	put_u64(p + 8, b);
	cmsg_put(buf, t, 0, p, sizeof p, NULL, 0);
}

int cmsg_get(struct cmsg_buf *buf, uint32_t expect, struct cmsg *m, char *why, size_t whysz)
{
	size_t have = buf->len - buf->off;
	if (have < CMSG_HEADER)
		return 0;
	const uint8_t *p = buf->data + buf->off;
	uint32_t t = get_u32(p), len = get_u32(p + 4);
	/* judged on the header alone: a broken length is not waited for */
	if (!known(t) || t >= 32 || !(expect & CMSG_BIT(t))) {
		snprintf(why, whysz, "a message of type %u (%s), not expected here", t, cmsg_name(t));
		return -1;
	}
	if (len < cmsg_min_len(t) || len > cmsg_max_len(t)) {
		snprintf(why, whysz, "a %s message of %u bytes (%zu to %zu)", cmsg_name(t), len, cmsg_min_len(t),
			 cmsg_max_len(t));
		return -1;
	}
	if (have < CMSG_HEADER + (size_t)len)
		return 0;
	m->type = t;
	m->len = len;
	m->id = get_u64(p + 8);
	m->data = p + CMSG_HEADER;
	buf->off += CMSG_HEADER + len;
	return 1;
}

bool cmsg_opened_of(const struct cmsg *m, struct cmsg_opened *o)
{
	if (m->type != CM_OPENED || m->len != 17 || m->data[16] > 3)
		return false;
	o->cap_bytes = get_u64(m->data);
	o->map_bytes = get_u64(m->data + 8);
	o->readonly = m->data[16] & 1;
	o->nolock = m->data[16] & 2;
	return true;
}

bool cmsg_failed_of(const struct cmsg *m, struct cmsg_failed *f)
{
	if (m->type != CM_FAILED || m->len < 2 || m->data[0] > CF_DAMAGED)
		return false;
	f->kind = (enum cmsg_fail)m->data[0];
	size_t n = m->len - 1;
	memcpy(f->text, m->data + 1, n);
	f->text[n] = '\0';
	/* text for a person: what is not printable is shown as '?' */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)f->text[i] < 0x20 || f->text[i] == 0x7f)
			f->text[i] = '?';
	return true;
}

bool cmsg_counts_of(const struct cmsg *m, uint64_t *a, uint64_t *b)
{
	if ((m->type != CM_WRITTEN && m->type != CM_CLEARED) || m->len != COUNTS_LEN)
		return false;
	*a = get_u64(m->data);
	if (b)
		*b = get_u64(m->data + 8);
	return true;
}

void cmsg_text_of(const struct cmsg *m, char *out, size_t outsz)
{
	size_t n = m->len < outsz ? m->len : outsz - 1;
	memcpy(out, m->data, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

ssize_t cmsg_read(int fd, struct cmsg_buf *buf)
{
	reserve(buf, READ_CHUNK);
	ssize_t n;
	while ((n = read(fd, buf->data + buf->len, buf->cap - buf->len)) < 0 && errno == EINTR)
		;
	if (n > 0)
		buf->len += (size_t)n;
	return n;
}

int cmsg_write(int fd, struct cmsg_buf *buf)
{
	while (buf->off < buf->len) {
		ssize_t n = write(fd, buf->data + buf->off, buf->len - buf->off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		buf->off += (size_t)n;
	}
	buf->off = buf->len = 0;
	return 1;
}
