/* The protocol codec: PROTOCOL.md sections 1-7. */
#include "config.h"

#include "message.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *word;
	enum msg_type type;
	bool has_id; /* the second word is a request id */
} msg_types[] = {
	/* the most frequent first: the racer reads answers, a worker solves */
	{"solution", MSG_SOLUTION, true},   {"solve", MSG_SOLVE, true},
	{"cancelled", MSG_CANCELLED, true}, {"cancel", MSG_CANCEL, true},
	{"progress", MSG_PROGRESS, true},   {"unsat", MSG_UNSAT, true},
	{"count", MSG_COUNT, true},         {"gaveup", MSG_GAVEUP, true},
	{"error", MSG_ERROR, true},         {"ping", MSG_PING, false},
	{"pong", MSG_PONG, false},          {"quit", MSG_QUIT, false},
	{"hello", MSG_HELLO, false},
};

const char *msg_type_name(enum msg_type t)
{
	for (size_t i = 0; i < sizeof msg_types / sizeof msg_types[0]; i++)
		if (msg_types[i].type == t)
			return msg_types[i].word;
	return "unknown";
}

bool msg_valid_id(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '.' || c == ':' || c == '-';
		if (!ok || n + 1 >= PROTO_ID_MAX)
			return false;
	}
	return n > 0;
}

int msg_parse(char *line, size_t len, struct msg *m, char *err, size_t errsz)
{
	char *words[PROTO_MAX_ARGS + PROTO_MAX_FIELDS + 2];
	int nwords = 0;
	memset(m, 0, sizeof *m);
	if (len && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c < 0x20 || c == 0x7f) {
			snprintf(err, errsz, "control character 0x%02x at byte %zu", c, i + 1);
			return -1;
		}
	}
	for (char *p = line; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (nwords == (int)(sizeof words / sizeof words[0])) {
			snprintf(err, errsz, "more than %d words", nwords);
			return -1;
		}
		words[nwords++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (nwords == 0) {
		snprintf(err, errsz, "empty line");
		return -1;
	}
	m->word = words[0];
	m->type = MSG_UNKNOWN;
	bool has_id = false;
	for (size_t i = 0; i < sizeof msg_types / sizeof msg_types[0]; i++) {
		if (strcmp(words[0], msg_types[i].word) == 0) {
			m->type = msg_types[i].type;
			has_id = msg_types[i].has_id;
			break;
		}
	}
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
