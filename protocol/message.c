/* The protocol codec: PROTOCOL.md sections 1-7. */
#include "config.h"

#include "message.h"
#include "lib/grid_internal.h"
#include "lib/number.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The type a message's first word (n bytes) names, and whether its second
 * word is a request id. The length first, then one comparison of known
 * size, which the compiler does inline: a strcmp with each name in turn
 * was 90 instructions a line. */
static enum msg_type msg_type_of(const char *w, size_t n, bool *has_id)
{
#define IS(name) (memcmp(w, name, sizeof name - 1) == 0)
	*has_id = true;
	switch (n) {
	case 4:
		*has_id = false;
		return IS("ping") ? MSG_PING : IS("pong") ? MSG_PONG : IS("quit") ? MSG_QUIT : MSG_UNKNOWN;
	case 5:
		if (IS("hello")) {
			*has_id = false;
			return MSG_HELLO;
		}
		return IS("solve") ? MSG_SOLVE : IS("unsat") ? MSG_UNSAT : IS("count") ? MSG_COUNT
			: IS("error") ? MSG_ERROR : MSG_UNKNOWN;
	case 6:
		if (IS("solves")) {
			*has_id = false;
			return MSG_SOLVES;
		}
		return IS("cancel") ? MSG_CANCEL : IS("gaveup") ? MSG_GAVEUP : MSG_UNKNOWN;
	case 8:
		return IS("solution") ? MSG_SOLUTION : IS("progress") ? MSG_PROGRESS : MSG_UNKNOWN;
	case 9:
		if (IS("solutions")) {
			*has_id = false;
			return MSG_SOLUTIONS;
		}
		return IS("cancelled") ? MSG_CANCELLED : MSG_UNKNOWN;
	default:
		return MSG_UNKNOWN;
	}
#undef IS
}

/* An id's bytes, looked up: the chain of ranges, lower case first, was 78
 * instructions for the racer's digit ids, on every line it reads. */
static const bool id_byte[256] = {
	['0' ... '9'] = true, ['A' ... 'Z'] = true, ['a' ... 'z'] = true,
	['_'] = true, ['.'] = true, [':'] = true, ['-'] = true,
};

bool msg_valid_id(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		if (!id_byte[(unsigned char)s[n]] || n + 1 >= PROTO_ID_MAX)
			return false;
	}
	return n > 0;
}

/* Which of 8 bytes are a space, a control character or DEL: the high bit
 * of each such byte. Byte by byte, with no carry from one to the next (the
 * low 7 bits plus 0x5f reach 0x80 from 0x21 on; DEL's xor is zero), so
 * that bytes left out of a word cannot mark one of it. */
static inline uint64_t stop_bytes(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, low7 = ones * 0x7f, del = x ^ low7;
	return (~(((x & low7) + ones * 0x5f) | x) | ~(((del & low7) + low7) | del)) & ones << 7;
}

/* The end of the word at p in the line [start, end): its first byte that is
 * a space, a control character or DEL, or end. 16 bytes a step where bytes
 * are in little-endian order (a 9x9 grid is 81 of them; a byte a step was
 * half of the parse), then 8; a word's last bytes as the line's last 8 (a
 * byte a step, "cancel 1234" was 80 instructions). */
static char *word_end(char *p, const char *start, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	typedef uint8_t bytes16 __attribute__((vector_size(16)));
	typedef uint64_t halves __attribute__((vector_size(16)));
	const bytes16 space = (bytes16){0} + (uint8_t)' ', del = (bytes16){0} + (uint8_t)0x7f;
	for (; end - p >= 16; p += 16) {
		bytes16 v;
		memcpy(&v, p, sizeof v);
		halves stop = (halves)((v <= space) | (v == del));
		if (stop[0])
			return p + __builtin_ctzll(stop[0]) / 8;
		if (stop[1])
			return p + 8 + __builtin_ctzll(stop[1]) / 8;
	}
	uint64_t x, stop;
	if (end - p >= 8) {
		memcpy(&x, p, sizeof x);
		if ((stop = stop_bytes(x)))
			return p + __builtin_ctzll(stop) / 8;
		p += 8;
	}
	if (p < end && end - start >= 8) {
		/* the line's last 8 bytes, those before p left out */
		memcpy(&x, end - 8, sizeof x);
		stop = stop_bytes(x) >> 8 * (8 - (end - p)) << 8 * (8 - (end - p));
		return stop ? (char *)end - 8 + __builtin_ctzll(stop) / 8 : (char *)end;
	}
#else
	(void)start;
#endif
	while (p < end && (unsigned char)*p > ' ' && *p != 0x7f)
		p++;
	return p;
}

int msg_parse(char *line, size_t len, struct msg *m, char *err, size_t errsz)
{
	char *words[PROTO_MAX_ARGS + PROTO_MAX_FIELDS + 2];
	int nwords = 0;
	/* what a reader may look at (fields up to nfields only): the whole
	 * struct is 600 bytes, cleared twice a puzzle in a race */
	m->type = MSG_UNKNOWN;
	m->word = m->id = NULL;
	m->argc = m->nfields = 0;
	memset(m->argv, 0, sizeof m->argv);
	if (len && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	/* one pass: words cut at spaces, control characters refused (three
	 * passes were 2% of a race's time on easy puzzles, on both sides) */
	char *p = line, *end = line + len;
	size_t len0 = 0; /* the first word's length */
	for (;;) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		if (nwords == (int)(sizeof words / sizeof words[0])) {
			snprintf(err, errsz, "more than %d words", nwords);
			return -1;
		}
		words[nwords++] = p;
		p = word_end(p, line, end);
		if (nwords == 1)
			len0 = (size_t)(p - words[0]);
		if (p == end)
			break;
		if (*p != ' ') {
			unsigned char c = (unsigned char)*p;
			snprintf(err, errsz, "control character 0x%02x at byte %zu", c, (size_t)(p - line) + 1);
			return -1;
		}
		*p++ = '\0';
	}
	if (nwords == 0) {
		snprintf(err, errsz, "empty line");
		return -1;
	}
	m->word = words[0];
	bool has_id;
	m->type = msg_type_of(words[0], len0, &has_id);
	if (m->type == MSG_UNKNOWN)
		return 0;
	int w = 1;
	if (has_id) {
		if (nwords < 2) {
			snprintf(err, errsz, "%s without a request id", words[0]);
			return -1;
		}
		/* "error - MESSAGE" is about no request */
		if (!(m->type == MSG_ERROR && strcmp(words[1], "-") == 0) && !msg_valid_id(words[1])) {
			snprintf(err, errsz, "%s: bad request id", words[0]);
			return -1;
		}
		m->id = words[1];
		w = 2;
	}
	for (; w < nwords; w++) {
		char *eq = strchr(words[w], '=');
		/* error messages are free text: every word is positional */
		if (eq && eq != words[w] && m->type != MSG_ERROR) {
			if (m->nfields == PROTO_MAX_FIELDS) {
				snprintf(err, errsz, "more than %d fields", PROTO_MAX_FIELDS);
				return -1;
			}
			*eq = '\0';
			m->fields[m->nfields].key = words[w];
			m->fields[m->nfields].value = eq + 1;
			m->nfields++;
		} else {
			if (m->argc == PROTO_MAX_ARGS) {
				if (m->type == MSG_ERROR)
					continue; /* the rest of a long error text */
				snprintf(err, errsz, "more than %d words before the fields", PROTO_MAX_ARGS);
				return -1;
			}
			m->argv[m->argc++] = words[w];
		}
	}
	switch (m->type) {
	case MSG_SOLVE:
	case MSG_SOLUTION:
		if (m->argc < 1) {
			snprintf(err, errsz, "%s %s without a grid", words[0], m->id);
			return -1;
		}
		break;
	case MSG_COUNT:
		if (m->argc < 1) {
			snprintf(err, errsz, "count %s without a number", m->id);
			return -1;
		}
		break;
	case MSG_PING:
	case MSG_PONG:
		if (m->argc < 1) {
			snprintf(err, errsz, "%s without a token", words[0]);
			return -1;
		}
		break;
	case MSG_HELLO:
		if (m->argc < 2) {
			snprintf(err, errsz, "hello without a name and version");
			return -1;
		}
		break;
	case MSG_SOLVES:
	case MSG_SOLUTIONS:
		if (m->argc < 2) {
			snprintf(err, errsz, "%s without a count and a side", words[0]);
			return -1;
		}
		break;
	default:
		break;
	}
	return 0;
}

const char *msg_field(const struct msg *m, const char *key)
{
	for (int i = 0; i < m->nfields; i++)
		if (strcmp(m->fields[i].key, key) == 0)
			return m->fields[i].value;
	return NULL;
}

int msg_format_grid(const struct grid *g, char *buf, size_t bufsz)
{
	if (g->side <= GRID_MAX_CHAR_SIDE) {
		struct notation nt;
		notation_default(&nt, g->side);
		return grid_format(g, &nt, buf, bufsz);
	}
	size_t pos = 0;
	for (int i = 0; i < g->cells; i++) {
		char tmp[8];
		int k = snprintf(tmp, sizeof tmp, "%s%d", i ? "," : "", g->cell[i]);
		if (pos + (size_t)k + 1 > bufsz)
			return -1;
		memcpy(buf + pos, tmp, (size_t)k);
		pos += (size_t)k;
	}
	buf[pos] = '\0';
	return (int)pos;
}

/* A character of the protocol's one-character form: its value, 0 for a
 * blank, -1 for anything else. */
static int word_char_value(unsigned char c)
{
	if (c >= '1' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return c == '.' ? 0 : -1;
}

int msg_parse_grid(const char *word, size_t len, int box, struct grid *g)
{
	grid_init(g, box);
	if (len == 81 && box == 3) {
		/* a filled 9x9 grid (an answer) 16 bytes at a time; anything
		 * with a blank goes the long way, which refuses '0' */
		char blank = 0;
		if (grid_cells_plain_9x9(word, g->cell, &blank) && !blank)
			return 0;
	}
	if (len == (size_t)g->cells && g->side <= GRID_MAX_CHAR_SIDE) {
		for (size_t i = 0; i < len; i++) {
			int v = word_char_value((unsigned char)word[i]);
			if (v < 0 || v > g->side)
				return -1;
			g->cell[i] = (uint8_t)v;
		}
		return 0;
	}
	/* comma-separated numbers */
	const char *p = word, *end = word + len;
	for (int i = 0; i < g->cells; i++) {
		if (i && (p == end || *p++ != ','))
			return -1;
		int v = 0, digits = 0;
		for (; p < end && *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
			v = v * 10 + (*p - '0');
		if (!digits || v > g->side)
			return -1;
		g->cell[i] = (uint8_t)v;
	}
	return p == end ? 0 : -1;
}

/* s as a decimal number: digits only (no sign, no blank, nothing after),
 * at most 20 of them, at most max. */
static inline bool read_number(const char *s, uint64_t max, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		x = x * 10 + (uint64_t)(*p - '0');
	size_t n = (size_t)(p - s);
	/* 20 digits may have wrapped: then they are past UINT64_MAX's, which
	 * they compare with as text */
	if (!n || *p || n > 20 || (n == 20 && memcmp(s, "18446744073709551615", 20) > 0) || x > max)
		return false;
	*v = x;
	return true;
}

bool msg_number(const char *s, uint64_t max, uint64_t *v)
{
	return read_number(s, max, v);
}

/* k is the word w (both NUL-terminated; stops at k's end). */
static inline bool key_is(const char *k, const char *w)
{
	for (; *w; k++, w++)
		if (*k != *w)
			return false;
	return !*k;
}

/* A time in ms: DIGITS[.DIGITS], as the workers write it (" ms=%.3f"). By
 * hand: strtod, with its locale and exponents, was a few percent of the
 * racer's time per puzzle. Up to 19 digits before the point; digits past the
 * 18th after it count for nothing. */
static bool read_ms(const char *s, double *ms)
{
	static const double scale[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
				       1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
	const char *p = s;
	uint64_t whole = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		whole = whole * 10 + (uint64_t)(*p - '0');
	if (p == s || p - s > 19)
		return false;
	double v = (double)whole;
	if (*p == '.') {
		const char *f = ++p;
		uint64_t frac = 0;
		int k = 0;
		for (; *p >= '0' && *p <= '9'; p++)
			if (k < 18) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				k++;
			}
		if (p == f)
			return false;
		v += (double)frac / scale[k];
	}
	if (*p)
		return false;
	*ms = v;
	return true;
}

static void say(char *err, size_t errsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t errsz, const char *fmt, ...)
{
	if (!err || !errsz)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

long msg_field_long(const struct msg *m, const char *key, long dflt, long min, long max, bool *bad)
{
	const char *v = msg_field(m, key);
	if (!v)
		return dflt;
	bool neg = v[0] == '-' && min < 0;
	uint64_t x;
	uint64_t most = neg ? (uint64_t)0 - (uint64_t)min : max < 0 ? 0 : (uint64_t)max;
	if (!read_number(v + neg, most, &x)) {
		*bad = true;
		return dflt;
	}
	long r = neg ? (long)(0 - x) : (long)x;
	if (r < min || r > max) {
		*bad = true;
		return dflt;
	}
	return r;
}

uint64_t msg_field_u64(const struct msg *m, const char *key, uint64_t dflt, bool *bad)
{
	const char *v = msg_field(m, key);
	uint64_t x;
	if (!v)
		return dflt;
	if (!read_number(v, UINT64_MAX, &x)) {
		*bad = true;
		return dflt;
	}
	return x;
}

/* --- typed reads --- */

/* sizes=MIN-MAX: box sizes. */
static bool read_sizes(const char *v, int *lo, int *hi)
{
	const char *dash = strchr(v, '-');
	char first[24];
	uint64_t a, b;
	if (!dash || (size_t)(dash - v) >= sizeof first)
		return false;
	memcpy(first, v, (size_t)(dash - v));
	first[dash - v] = '\0';
	if (!read_number(first, GRID_MAX_BOX, &a) || !read_number(dash + 1, GRID_MAX_BOX, &b) ||
	    a < GRID_MIN_BOX || a > b)
		return false;
	*lo = (int)a;
	*hi = (int)b;
	return true;
}

int msg_read_hello(const struct msg *m, struct msg_hello *h, char *err, size_t errsz)
{
	*h = (struct msg_hello){
		.name = m->argc > 0 ? m->argv[0] : NULL,
		.version = m->argc > 1 ? m->argv[1] : NULL,
		.device = "cpu",
		.batch = 1,
	};
	const char *proto = NULL, *kind = NULL, *sizes = NULL, *device = NULL, *detail = NULL,
		   *batch = NULL, *bulk = NULL;
	/* one pass; the first of a key counts, as for msg_field */
	for (int i = 0; i < m->nfields; i++) {
		const char *k = m->fields[i].key, *v = m->fields[i].value, **to = NULL;
		if (strcmp(k, "proto") == 0)
			to = &proto;
		else if (strcmp(k, "kind") == 0)
			to = &kind;
		else if (strcmp(k, "sizes") == 0)
			to = &sizes;
		else if (strcmp(k, "device") == 0)
			to = &device;
		else if (strcmp(k, "detail") == 0)
			to = &detail;
		else if (strcmp(k, "batch") == 0)
			to = &batch;
		else if (strcmp(k, "bulk") == 0)
			to = &bulk;
		if (to && !*to)
			*to = v;
	}
	uint64_t v;
	if (proto && read_number(proto, LONG_MAX, &v))
		h->proto = (long)v;
	/* (proto read first: a caller says which version a bad hello speaks) */
	if (m->type != MSG_HELLO || m->argc < 2) {
		say(err, errsz, "not a hello");
		return -1;
	}
	if (!proto) {
		say(err, errsz, "no proto");
		return -1;
	}
	if (!h->proto) {
		say(err, errsz, "proto=%.32s: not a protocol version", proto);
		return -1;
	}
	if (!kind) {
		say(err, errsz, "no kind");
		return -1;
	}
	if (strcmp(kind, "complete") != 0 && strcmp(kind, "stochastic") != 0) {
		say(err, errsz, "kind=%.32s: neither complete nor stochastic", kind);
		return -1;
	}
	h->complete = kind[0] == 'c';
	if (!sizes) {
		say(err, errsz, "no sizes");
		return -1;
	}
	if (!read_sizes(sizes, &h->min_box, &h->max_box)) {
		say(err, errsz, "sizes=%.32s: not MIN-MAX box sizes from %d to %d", sizes, GRID_MIN_BOX,
		    GRID_MAX_BOX);
		return -1;
	}
	if (device)
		h->device = device;
	h->detail = detail;
	if (batch) {
		if (!read_number(batch, UINT64_MAX, &v) || v == 0) {
			say(err, errsz, "batch=%.32s: not a positive whole number", batch);
			return -1;
		}
		h->batch = v > INT_MAX ? INT_MAX : (int)v;
	}
	/* a later bulk format would be another number: this one is 1, and any
	 * other value leaves the peer on lines (PROTOCOL.md 13) */
	h->bulk = bulk && strcmp(bulk, "1") == 0;
	return 0;
}

void msg_hello_detail(const char *detail, char *buf, size_t bufsz)
{
	if (!bufsz)
		return;
	if (!detail)
		detail = "";
	size_t n = strlen(detail);
	if (n < bufsz) {
		memcpy(buf, detail, n + 1);
	} else {
		/* too long: cut after a word, not in one, with room for "..." */
		size_t keep = bufsz > 4 ? bufsz - 4 : 0;
		size_t cut = keep;
		while (cut > 0 && detail[cut] != '_')
			cut--;
		if (cut == 0)
			cut = keep;
		memcpy(buf, detail, cut);
		snprintf(buf + cut, bufsz - cut, "...");
	}
	for (char *c = buf; *c; c++)
		if (*c == '_')
			*c = ' '; /* PROTOCOL.md 5: spaces travel as '_' */
}

int msg_read_solve_fields(const struct msg *m, const struct msg_solve_fields *dflt,
			  struct msg_solve_fields *f, char *err, size_t errsz)
{
	if (dflt)
		*f = *dflt;
	else
		*f = (struct msg_solve_fields){0};
	/* one pass; the first of a key counts, as for msg_field */
	static const char *const keys[] = {"seed", "limit_ms", "count", "progress_ms"};
	static const uint64_t least[] = {0, 0, 1, 0};
	static const uint64_t most[] = {UINT64_MAX, PROTO_MS_MAX, PROTO_COUNT_MAX, PROTO_MS_MAX};
	unsigned seen = 0;
	for (int i = 0; i < m->nfields; i++) {
		const char *k = m->fields[i].key, *v = m->fields[i].value;
		unsigned which = 0;
		while (which < 4 && strcmp(k, keys[which]) != 0)
			which++;
		if (which == 4 || (seen & (1u << which)))
			continue; /* unknown fields are ignored (PROTOCOL.md 6) */
		seen |= 1u << which;
		uint64_t x = 0;
		if (!read_number(v, most[which], &x) || x < least[which]) {
			say(err, errsz, "%s=%.32s: not a whole number from %" PRIu64 " to %" PRIu64, k, v,
			    least[which], most[which]);
			if (dflt)
				*f = *dflt;
			return -1;
		}
		switch (which) {
		case 0:
			f->has_seed = true;
			f->seed = x;
			break;
		case 1:
			f->limit_ms = (long)x;
			break;
		case 2:
			f->count = (long)x;
			break;
		default:
			f->progress_ms = (long)x;
			break;
		}
	}
	return 0;
}

int msg_read_solve(const struct msg *m, const struct msg_solve_fields *dflt, struct msg_solve *s,
		   char *err, size_t errsz)
{
	s->id = m->id;
	s->grid = m->argc > 0 ? m->argv[0] : NULL;
	s->grid_len = s->grid ? strlen(s->grid) : 0;
	return msg_read_solve_fields(m, dflt, &s->f, err, errsz);
}

enum msg_read_status msg_read_reply(const struct msg *m, struct msg_reply *r, char *err, size_t errsz)
{
	r->type = m->type;
	r->has_id = false;
	r->id = 0;
	r->grid = NULL;
	r->grid_len = 0;
	r->cells = NULL;
	r->cells_side = 0;
	r->count = 0;
	r->reason = NULL;
	r->words = NULL;
	r->nwords = 0;
	r->has_nodes = r->has_ms = false;
	r->nodes = 0;
	r->ms = 0;
	switch (m->type) {
	case MSG_PROGRESS:
	case MSG_SOLUTION:
	case MSG_UNSAT:
	case MSG_COUNT:
	case MSG_GAVEUP:
	case MSG_CANCELLED:
	case MSG_ERROR:
		break;
	default:
		return MSG_READ_OTHER;
	}
	if (m->type == MSG_ERROR) {
		r->words = m->argv;
		r->nwords = m->argc;
		if (m->id[0] == '-' && !m->id[1])
			return MSG_READ_OK; /* about no request */
	}
	if (!read_number(m->id, UINT64_MAX, &r->id)) {
		say(err, errsz, "%s %s: not a request id (a number)", m->word, m->id);
		return MSG_READ_BAD_ID;
	}
	r->has_id = true;
	uint64_t x;
	switch (m->type) {
	case MSG_PROGRESS:
	case MSG_ERROR: /* its words are text, not fields */
	case MSG_CANCELLED:
		return MSG_READ_OK;
	case MSG_SOLUTION:
		r->grid = m->argv[0];
		r->grid_len = strlen(r->grid);
		break;
	case MSG_COUNT:
		if (!read_number(m->argv[0], PROTO_COUNT_MAX, &x)) {
			say(err, errsz, "count %s %.32s: not a count", m->id, m->argv[0]);
			return MSG_READ_BAD_FIELD;
		}
		r->count = (long)x;
		if (m->argc > 1) {
			r->grid = m->argv[1];
			r->grid_len = strlen(r->grid);
		}
		break;
	case MSG_GAVEUP:
		r->reason = m->argc > 0 ? m->argv[0] : NULL;
		break;
	default:
		break;
	}
	/* one pass over the fields; the first of a key counts */
	for (int i = 0; i < m->nfields; i++) {
		const char *k = m->fields[i].key, *v = m->fields[i].value;
		if (k[0] == 'm' && k[1] == 's' && !k[2]) {
			if (r->has_ms)
				continue;
			r->has_ms = true;
			if (!read_ms(v, &r->ms)) {
				r->ms = 0;
				say(err, errsz, "%s %s: ms=%.32s: not a time", m->word, m->id, v);
				return MSG_READ_BAD_FIELD;
			}
		} else if (k[0] == 'n' && key_is(k + 1, "odes")) {
			if (r->has_nodes)
				continue;
			r->has_nodes = true;
			if (!read_number(v, UINT64_MAX, &r->nodes)) {
				say(err, errsz, "%s %s: nodes=%.32s: not a number", m->word, m->id, v);
				return MSG_READ_BAD_FIELD;
			}
		} else if (k[0] == 'r' && key_is(k + 1, "eason") && !r->reason && m->type != MSG_GAVEUP) {
			r->reason = v;
		}
	}
	return MSG_READ_OK;
}

/* --- writing --- */

/* A line being written: at p, up to end (the room for its NUL is past
 * end). Once something does not fit, full stays set and nothing more is
 * written. Everything by hand: these lines are written once per puzzle on
 * both sides, and snprintf was a tenth of the racer's time per puzzle. */
struct line_out {
	char *start, *p, *end;
	bool full;
};

static struct line_out line_begin(char *buf, size_t bufsz)
{
	struct line_out o = {buf, buf, buf + (bufsz ? bufsz - 1 : 0), bufsz == 0};
	return o;
}

static void put(struct line_out *o, const char *s, size_t n)
{
	if (o->full || (size_t)(o->end - o->p) < n) {
		o->full = true;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static void put_str(struct line_out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct line_out *o, uint64_t v)
{
	char digits[U64_DECIMAL_SIZE];
	const char *d = u64_decimal(v, digits);
	put(o, d, (size_t)(digits + sizeof digits - 1 - d));
}

static void put_long(struct line_out *o, long v)
{
	if (v < 0) {
		put(o, "-", 1);
		put_u64(o, 0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

/* Free text: control characters and bytes past ASCII (a line is ASCII)
 * become '?', and spaces '_' when it must stay one word. */
static void put_text(struct line_out *o, const char *s, bool one_word)
{
	for (; *s && !o->full; s++) {
		unsigned char c = (unsigned char)*s;
		char w = c < 0x20 || c >= 0x7f ? '?' : one_word && c == ' ' ? '_' : (char)c;
		put(o, &w, 1);
	}
}

static void put_grid(struct line_out *o, const struct grid *g)
{
	if (o->full)
		return;
	int n = msg_format_grid(g, o->p, (size_t)(o->end - o->p) + 1);
	if (n < 0)
		o->full = true;
	else
		o->p += n;
}

static void put_effort(struct line_out *o, const struct msg_effort *e)
{
	if (!e)
		return;
	put(o, " nodes=", 7);
	put_u64(o, e->nodes);
	/* " ms=%.3f" by hand: snprintf's %.3f was a tenth of an easy
	 * puzzle's cost in a worker */
	double ms = e->ms > 0 ? e->ms : 0;
	if (ms >= 1e15) {
		char big[48];
		int n = snprintf(big, sizeof big, " ms=%.3f", ms);
		put(o, big, n > 0 && (size_t)n < sizeof big ? (size_t)n : 0);
		return;
	}
	uint64_t us = (uint64_t)(ms * 1000 + 0.5);
	char frac[4] = {'.', (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10), (char)('0' + us % 10)};
	put(o, " ms=", 4);
	put_u64(o, us / 1000);
	put(o, frac, 4);
}

/* The message type and, when there is one, the id. */
static struct line_out line_start(char *buf, size_t bufsz, const char *type, const char *id)
{
	struct line_out o = line_begin(buf, bufsz);
	put_str(&o, type);
	if (id) {
		put(&o, " ", 1);
		put_str(&o, id);
	}
	return o;
}

static int line_end(struct line_out *o)
{
	put(o, "\n", 1);
	if (o->full)
		return -1;
	*o->p = '\0';
	return (int)(o->p - o->start);
}

int msg_write_hello(char *buf, size_t bufsz, const struct msg_hello *h)
{
	struct line_out o = line_start(buf, bufsz, "hello", NULL);
	put(&o, " ", 1);
	put_text(&o, h->name, true);
	put(&o, " ", 1);
	put_text(&o, h->version, true);
	put(&o, " proto=", 7);
	put_long(&o, h->proto > 0 ? h->proto : PROTO_VERSION);
	put_str(&o, h->complete ? " kind=complete" : " kind=stochastic");
	put(&o, " sizes=", 7);
	put_long(&o, h->min_box);
	put(&o, "-", 1);
	put_long(&o, h->max_box);
	put(&o, " device=", 8);
	put_text(&o, h->device, true);
	if (h->detail && h->detail[0]) {
		put(&o, " detail=", 8);
		put_text(&o, h->detail, true);
	}
	if (h->batch > 0) {
		put(&o, " batch=", 7);
		put_long(&o, h->batch);
	}
	if (h->bulk)
		put_str(&o, " bulk=1");
	return line_end(&o);
}

/* solve's fields, the seed last (before_seed: where it starts). */
static void put_fields(struct line_out *o, const struct msg_solve_fields *f, size_t *before_seed)
{
	if (f && f->count >= 2) {
		put(o, " count=", 7);
		put_long(o, f->count);
	}
	if (f && f->limit_ms > 0) {
		put(o, " limit_ms=", 10);
		put_long(o, f->limit_ms);
	}
	if (f && f->progress_ms > 0) {
		put(o, " progress_ms=", 13);
		put_long(o, f->progress_ms);
	}
	if (before_seed)
		*before_seed = (size_t)(o->p - o->start);
	if (f && f->has_seed) {
		put(o, " seed=", 6);
		put_u64(o, f->seed);
	}
}

int msg_write_solve(char *buf, size_t bufsz, const char *id, const struct grid *g,
		    const struct msg_solve_fields *f, size_t *before_seed)
{
	struct line_out o = line_start(buf, bufsz, "solve", id);
	put(&o, " ", 1);
	put_grid(&o, g);
	put_fields(&o, f, before_seed);
	return line_end(&o);
}

int msg_write_solves(char *buf, size_t bufsz, int n, int side, const struct msg_solve_fields *f)
{
	struct line_out o = line_start(buf, bufsz, "solves", NULL);
	put(&o, " ", 1);
	put_long(&o, n);
	put(&o, " ", 1);
	put_long(&o, side);
	put_fields(&o, f, NULL);
	return line_end(&o);
}

int msg_write_cancel(char *buf, size_t bufsz, const char *id)
{
	struct line_out o = line_start(buf, bufsz, "cancel", id);
	return line_end(&o);
}

int msg_write_ping(char *buf, size_t bufsz, const char *token)
{
	struct line_out o = line_start(buf, bufsz, "ping", token);
	return line_end(&o);
}

int msg_write_pong(char *buf, size_t bufsz, const char *token)
{
	struct line_out o = line_start(buf, bufsz, "pong", token);
	return line_end(&o);
}

int msg_write_quit(char *buf, size_t bufsz)
{
	struct line_out o = line_start(buf, bufsz, "quit", NULL);
	return line_end(&o);
}

int msg_write_progress(char *buf, size_t bufsz, const char *id, const char *fields)
{
	struct line_out o = line_start(buf, bufsz, "progress", id);
	put(&o, " ", 1);
	put_text(&o, fields, false);
	return line_end(&o);
}

int msg_write_solution(char *buf, size_t bufsz, const char *id, const struct grid *solution,
		       const struct msg_effort *e)
{
	struct line_out o = line_start(buf, bufsz, "solution", id);
	put(&o, " ", 1);
	put_grid(&o, solution);
	put_effort(&o, e);
	return line_end(&o);
}

int msg_write_unsat(char *buf, size_t bufsz, const char *id, const struct msg_effort *e,
		    const char *reason)
{
	struct line_out o = line_start(buf, bufsz, "unsat", id);
	put_effort(&o, e);
	if (reason) {
		put(&o, " reason=", 8);
		put_text(&o, reason, true);
	}
	return line_end(&o);
}

int msg_write_count(char *buf, size_t bufsz, const char *id, long k, const struct grid *solution,
		    const struct msg_effort *e, const char *reason)
{
	struct line_out o = line_start(buf, bufsz, "count", id);
	put(&o, " ", 1);
	put_long(&o, k);
	if (solution) {
		put(&o, " ", 1);
		put_grid(&o, solution);
	}
	put_effort(&o, e);
	if (reason) {
		put(&o, " reason=", 8);
		put_text(&o, reason, true);
	}
	return line_end(&o);
}

int msg_write_gaveup(char *buf, size_t bufsz, const char *id, const char *reason, double ms)
{
	struct line_out o = line_start(buf, bufsz, "gaveup", id);
	put(&o, " ", 1);
	put_text(&o, reason[0] ? reason : "unknown", true);
	if (ms >= 0) {
		char t[48];
		int n = snprintf(t, sizeof t, " ms=%.3f", ms);
		put(&o, t, n > 0 && (size_t)n < sizeof t ? (size_t)n : 0);
	}
	return line_end(&o);
}

int msg_write_cancelled(char *buf, size_t bufsz, const char *id)
{
	struct line_out o = line_start(buf, bufsz, "cancelled", id);
	return line_end(&o);
}

int msg_write_error(char *buf, size_t bufsz, const char *id, const char *text)
{
	struct line_out o = line_start(buf, bufsz, "error", id ? id : "-");
	put(&o, " ", 1);
	put_text(&o, text, false);
	return line_end(&o);
}

/* --- a solve kept to be sent several times --- */

static size_t count_digits(uint64_t v)
{
	size_t n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void msg_solve_record_init(struct msg_solve_record *r)
{
	r->line = NULL;
	r->len = r->seed_at = 0;
}

void msg_solve_record_clear(struct msg_solve_record *r)
{
	if (r->line && r->line != r->small)
		free(r->line);
	msg_solve_record_init(r);
}

int msg_solve_record_make(struct msg_solve_record *r, const char *id, const struct grid *g,
			  const struct msg_solve_fields *f)
{
	msg_solve_record_clear(r);
	size_t seed_at;
	int n;
	if (g->cells <= 81) {
		/* written in place: it fits, unless its id is longer than any
		 * of the racer's */
		n = msg_write_solve(r->small, sizeof r->small, id, g, f, &seed_at);
		if (n >= 0) {
			r->line = r->small;
			r->len = (uint32_t)n;
			r->seed_at = (uint32_t)seed_at;
			return n;
		}
	}
	/* the line's length at most: a grid of numbers takes 3 bytes a cell */
	size_t max = sizeof "solve " + strlen(id) + 1 +
		     (size_t)g->cells * (g->side <= GRID_MAX_CHAR_SIDE ? 1 : 3) + 1;
	if (f && f->count >= 2)
		max += sizeof " count=" + count_digits((uint64_t)f->count);
	if (f && f->limit_ms > 0)
		max += sizeof " limit_ms=" + count_digits((uint64_t)f->limit_ms);
	if (f && f->progress_ms > 0)
		max += sizeof " progress_ms=" + count_digits((uint64_t)f->progress_ms);
	if (f && f->has_seed)
		max += sizeof " seed=" + count_digits(f->seed);
	char *buf = max <= sizeof r->small ? r->small : malloc(max);
	if (!buf)
		return -1;
	n = msg_write_solve(buf, max, id, g, f, &seed_at);
	if (n < 0) {
		if (buf != r->small)
			free(buf);
		return -1;
	}
	r->line = buf;
	r->len = (uint32_t)n;
	r->seed_at = (uint32_t)seed_at;
	return n;
}
