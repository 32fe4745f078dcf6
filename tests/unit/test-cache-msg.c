/* Unit tests: the cache helpers' messages (racer/cache_msg.c). */
#include "config.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "racer/cache_msg.h"
#include "tap.h"

#define ALL 0xffffffffu

/* A header as a broken peer would write it. */
static void raw_header(struct cmsg_buf *b, uint32_t type, uint32_t len, uint64_t id)
{
	uint8_t h[CMSG_HEADER];
	memcpy(h, &type, 4);
	memcpy(h + 4, &len, 4);
	memcpy(h + 8, &id, 8);
	size_t have = cmsg_buf_pending(b);
	uint8_t *d = realloc(b->data, b->len + sizeof h);
	if (!d)
		abort();
	b->data = d;
	memcpy(b->data + b->len, h, sizeof h);
	b->len += sizeof h;
	b->cap = b->len;
	(void)have;
}

int main(void)
{
	struct cmsg_buf b = {0};
	struct cmsg m;
	char why[256];
	uint8_t key[CACHE_KEY_LEN];
	for (int i = 0; i < CACHE_KEY_LEN; i++)
		key[i] = (uint8_t)(i * 7);

	/* round trips */
	ok(cmsg_put(&b, CM_LOOKUP, 42, key, sizeof key, NULL, 0) == 0, "a look-up is written");
	ok(cmsg_buf_pending(&b) == CMSG_HEADER + CACHE_KEY_LEN, "header and key: %zu bytes", cmsg_buf_pending(&b));
	ok(cmsg_get(&b, CMSG_BIT(CM_LOOKUP), &m, why, sizeof why) == 1, "and read back");
	ok(m.type == CM_LOOKUP && m.id == 42 && m.len == CACHE_KEY_LEN && memcmp(m.data, key, sizeof key) == 0,
	   "type, id, payload as written");
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) == 0, "then nothing");

	uint8_t value[CACHE_HEADER + 162];
	memset(value, 3, sizeof value);
	uint8_t flag = 1;
	ok(cmsg_put(&b, CM_HIT, 7, &flag, 1, value, sizeof value) == 0, "a hit: flag and value");
	ok(cmsg_put(&b, CM_MISS, 8, NULL, 0, NULL, 0) == 0, "a miss");
	ok(cmsg_get(&b, CMSG_BIT(CM_HIT) | CMSG_BIT(CM_MISS), &m, why, sizeof why) == 1 && m.type == CM_HIT &&
	   m.id == 7 && m.len == 1 + sizeof value && m.data[0] == 1 && m.data[1] == 3,
	   "the hit comes first, whole");
	ok(cmsg_get(&b, CMSG_BIT(CM_HIT) | CMSG_BIT(CM_MISS), &m, why, sizeof why) == 1 && m.type == CM_MISS &&
	   m.id == 8 && m.len == 0, "then the miss");

	struct cmsg_opened o = {.cap_bytes = 1u << 30, .map_bytes = 123456789, .readonly = true, .nolock = false}, o2;
	cmsg_put_opened(&b, &o);
	ok(cmsg_get(&b, CMSG_BIT(CM_OPENED), &m, why, sizeof why) == 1 && cmsg_opened_of(&m, &o2) &&
	   o2.cap_bytes == o.cap_bytes && o2.map_bytes == o.map_bytes && o2.readonly && !o2.nolock,
	   "opened: its fields");

	struct cmsg_failed f;
	cmsg_put_failed(&b, CF_DAMAGED, "cut short\n: 12 bytes");
	ok(cmsg_get(&b, CMSG_BIT(CM_FAILED), &m, why, sizeof why) == 1 && cmsg_failed_of(&m, &f) &&
	   f.kind == CF_DAMAGED, "failed: its kind");
	is_str(f.text, "cut short?: 12 bytes", "failed: its text, a control character shown as '?'");
	cmsg_put_failed(&b, CF_ERROR, "");
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) == 1 && cmsg_failed_of(&m, &f) && strcmp(f.text, "?") == 0,
	   "an empty text is sent as '?'");

	uint64_t x, y;
	cmsg_put_counts(&b, CM_WRITTEN, 1024, 17);
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) == 1 && cmsg_counts_of(&m, &x, &y) && x == 1024 && y == 17,
	   "written: its counts");

	/* bounds, when writing */
	ok(cmsg_put(&b, CM_LOOKUP, 1, key, 15, NULL, 0) < 0, "a look-up with a short key is not written");
	ok(cmsg_put(&b, CM_MISS, 1, key, 1, NULL, 0) < 0, "a miss with a payload is not written");
	ok(cmsg_put(&b, CM_PUT, 1, key, sizeof key, value, CACHE_HEADER_V1 - 1) < 0, "a put of a short value is not written");
	uint8_t *huge = calloc(1, cache_value_max() + 1);
	ok(cmsg_put(&b, CM_PUT, 1, key, sizeof key, huge, cache_value_max() + 1) < 0,
	   "a put of a value over the longest there is is not written");
	ok(cmsg_put(&b, CM_PUT, 1, key, sizeof key, huge, cache_value_max()) == 0, "the longest is");
	ok(cmsg_put(&b, (enum cmsg_type)99, 1, NULL, 0, NULL, 0) < 0, "an unknown type is not written");
	ok(cmsg_get(&b, CMSG_BIT(CM_PUT), &m, why, sizeof why) == 1 && m.len == CACHE_KEY_LEN + cache_value_max(),
	   "and only the good one is there");
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) == 0, "then nothing");
	free(huge);

	/* bounds, when reading: judged on the header, before the payload */
	raw_header(&b, CM_HIT, 0x7fffffffu, 1);
	ok(cmsg_get(&b, CMSG_BIT(CM_HIT), &m, why, sizeof why) < 0, "a hit of 2 GB is refused at once: %s", why);
	cmsg_buf_free(&b);
	raw_header(&b, CM_MISS, 4, 1);
	ok(cmsg_get(&b, CMSG_BIT(CM_MISS), &m, why, sizeof why) < 0, "a miss with a payload is refused: %s", why);
	cmsg_buf_free(&b);
	raw_header(&b, 0, 0, 1);
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) < 0, "type 0 is refused: %s", why);
	cmsg_buf_free(&b);
	raw_header(&b, 1000, 0, 1);
	ok(cmsg_get(&b, ALL, &m, why, sizeof why) < 0, "an unknown type is refused: %s", why);
	cmsg_buf_free(&b);
	cmsg_put(&b, CM_PUT, 1, key, sizeof key, value, sizeof value);
	ok(cmsg_get(&b, CMSG_BIT(CM_LOOKUP) | CMSG_BIT(CM_WALK), &m, why, sizeof why) < 0,
	   "a known type not expected at this end is refused: %s", why);
	cmsg_buf_free(&b);

	/* a message in pieces: taken only when whole */
	struct cmsg_buf whole = {0}, part = {0};
	cmsg_put(&whole, CM_PUT, 5, key, sizeof key, value, sizeof value);
	size_t n = cmsg_buf_pending(&whole);
	int got = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t *d = realloc(part.data, part.len + 1);
		if (!d)
			abort();
		part.data = d;
		part.data[part.len++] = whole.data[i];
		part.cap = part.len;
		int r = cmsg_get(&part, CMSG_BIT(CM_PUT), &m, why, sizeof why);
		if (r != 0) {
			got = i + 1 == n && r == 1 ? 1 : -1;
			break;
		}
	}
	ok(got == 1 && m.id == 5 && m.len == CACHE_KEY_LEN + sizeof value, "a byte at a time: taken at the last byte");
	cmsg_buf_free(&whole);
	cmsg_buf_free(&part);

	/* over a socketpair, many at once, read in chunks */
	int sv[2];
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "a socketpair");
	struct cmsg_buf out = {0}, in = {0};
	for (uint64_t i = 0; i < 100; i++)
		cmsg_put(&out, CM_LOOKUP, i, key, sizeof key, NULL, 0);
	ok(cmsg_write(sv[0], &out) == 1 && cmsg_buf_pending(&out) == 0, "a hundred look-ups written");
	close(sv[0]);
	uint64_t next = 0;
	ssize_t r;
	while ((r = cmsg_read(sv[1], &in)) > 0)
		while (cmsg_get(&in, CMSG_BIT(CM_LOOKUP), &m, why, sizeof why) == 1 && m.id == next)
			next++;
	ok(r == 0 && next == 100, "read back in order, then the end: %llu", (unsigned long long)next);
	close(sv[1]);
	cmsg_buf_free(&out);
	cmsg_buf_free(&in);

	ok(strcmp(cmsg_name(CM_LOOKUP), "lookup") == 0 && strcmp(cmsg_name(77), "unknown") == 0, "names");
	return tap_done();
}
