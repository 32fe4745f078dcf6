/* The cache's value codec (cache_value.h): the layout is there. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racer/cache_value.h"

#include "lib/common.h"

#define VERDICT_SOLVED 1
#define VERDICT_UNSAT 2

void cache_key(const struct grid *puzzle, uint8_t key[CACHE_KEY_LEN])
{
	struct grid_hash h = grid_hash(puzzle);
	for (int i = 0; i < 8; i++) {
		key[i] = (uint8_t)(h.high >> (56 - 8 * i));
		key[8 + i] = (uint8_t)(h.low >> (56 - 8 * i));
	}
}

static size_t header_len(const uint8_t *b)
{
	return b[0] == 1 ? CACHE_HEADER_V1 : CACHE_HEADER;
}

size_t cache_value_max(void)
{
	return CACHE_HEADER + 2 * (size_t)GRID_MAX_CELLS;
}

size_t cache_value_len(const struct grid *puzzle, const struct cache_entry *e)
{
	return CACHE_HEADER + (size_t)puzzle->cells * (e->verdict == V_SOLVED ? 2 : 1);
}

size_t cache_encode(const struct grid *puzzle, const struct cache_entry *e, uint8_t *buf,
		    size_t bufsz)
{
	size_t cells = (size_t)puzzle->cells;
	size_t len = cache_value_len(puzzle, e);
	if (len > bufsz)
		return 0;
	memset(buf, 0, CACHE_HEADER);
	buf[0] = CACHE_FORMAT;
	buf[1] = e->verdict == V_SOLVED ? VERDICT_SOLVED : VERDICT_UNSAT;
	buf[2] = (uint8_t)e->uniq;
	buf[3] = (uint8_t)puzzle->box;
	double us = e->ms * 1000.0;
	uint32_t t = us <= 0 ? 0 : us >= 4294967295.0 ? UINT32_MAX : (uint32_t)us;
	for (int i = 0; i < 4; i++)
		buf[4 + i] = (uint8_t)(t >> (8 * i));
	memcpy(buf + 8, e->winner, strnlen(e->winner, 16));
	const char *version = e->version[0] ? e->version : PACKAGE_VERSION;
	memcpy(buf + 24, version, strnlen(version, 16));
	memcpy(buf + 48, e->provers, strnlen(e->provers, CACHE_PROVERS_MAX - 1));
	memcpy(buf + CACHE_HEADER, puzzle->cell, cells);
	if (e->verdict == V_SOLVED)
		memcpy(buf + CACHE_HEADER + cells, e->solution.cell, cells);
	return len;
}

/* A name field: printable ASCII up to its first NUL. */
static bool copy_name(char *out, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n && b[i]; i++) {
		if (b[i] < 0x21 || b[i] > 0x7e)
			return false;
		out[i] = (char)b[i];
	}
	out[i] = '\0';
	return true;
}

int cache_decode(const void *data, size_t len, struct grid *puzzle, struct cache_entry *e,
		 char *why, size_t whysz)
{
	const uint8_t *b = data;
	if (len < CACHE_HEADER_V1) {
		snprintf(why, whysz, "a value of %zu bytes", len);
		return -1;
	}
	if (b[0] > CACHE_FORMAT)
		return 0; /* written by a newer racer: not ours to judge */
	size_t header = header_len(b);
	int box = b[3];
	if (b[0] < 1 || len < header || (b[1] != VERDICT_SOLVED && b[1] != VERDICT_UNSAT) ||
	    b[2] > UNIQ_MULTIPLE || box < GRID_MIN_BOX || box > GRID_MAX_BOX) {
		snprintf(why, whysz, "a malformed header");
		return -1;
	}
	size_t cells = (size_t)box * box * box * box;
	bool solved = b[1] == VERDICT_SOLVED;
	if (len != header + cells * (solved ? 2 : 1)) {
		snprintf(why, whysz, "a value of %zu bytes for a %dx%d grid", len, box * box, box * box);
		return -1;
	}
	e->provers[0] = '\0';
	if (!copy_name(e->winner, b + 8, 16) || !copy_name(e->version, b + 24, 16) ||
	    (header == CACHE_HEADER && !copy_name(e->provers, b + 48, CACHE_PROVERS_MAX - 1))) {
		snprintf(why, whysz, "a malformed name");
		return -1;
	}
	e->verdict = solved ? V_SOLVED : V_UNSAT;
	e->uniq = (enum uniqueness)b[2];
	e->ms = (double)((uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24) /
		1000.0;
	if (puzzle)
		grid_from_cells(puzzle, box, b + header);
	if (solved)
		grid_from_cells(&e->solution, box, b + header + cells);
	return 1;
}

enum cache_result cache_check(const struct grid *puzzle, const void *data, size_t len,
			      struct cache_entry *e, char *why, size_t whysz)
{
	const uint8_t *b = data;
	int d = cache_decode(data, len, NULL, e, why, whysz);
	if (d <= 0)
		return d == 0 ? CACHE_MISS : CACHE_BAD;
	if (b[3] != puzzle->box || memcmp(b + header_len(b), puzzle->cell, (size_t)puzzle->cells) != 0) {
		snprintf(why, whysz, "it is the entry of another puzzle");
		return CACHE_BAD;
	}
	if (e->verdict == V_SOLVED && !grid_verify(puzzle, &e->solution, why, whysz))
		return CACHE_BAD;
	return CACHE_HIT;
}

uint64_t cache_written_at(const void *value, size_t len)
{
	const uint8_t *b = value;
	return len >= CACHE_HEADER && b[0] == CACHE_FORMAT ? cache_le64(b + CACHE_TICK_AT) : 0;
}

void cache_set_written_at(void *value, size_t len, uint64_t tick)
{
	uint8_t *b = value;
	if (len >= CACHE_HEADER && b[0] == CACHE_FORMAT)
		cache_put_le64(b + CACHE_TICK_AT, tick);
}

bool cache_keep_stored(const void *stored, size_t stored_len, const void *fresh, size_t fresh_len)
{
	struct {
		union grid_room sp;
		struct cache_entry se, fe;
	} *both = xmalloc(sizeof *both);
	const struct grid *sp = &both->sp.grid;
	const struct cache_entry *se = &both->se, *fe = &both->fe;
	char why[GRID_ERR_MAX];
	const uint8_t *f = fresh;
	bool keep;
	if (cache_decode(stored, stored_len, &both->sp.grid, &both->se, why, sizeof why) <= 0)
		keep = false;
	else if (cache_decode(fresh, fresh_len, NULL, &both->fe, why, sizeof why) <= 0)
		keep = true;
	else if (sp->box != f[3] || memcmp(sp->cell, f + header_len(f), (size_t)sp->cells) != 0)
		keep = false; /* another puzzle's entry (a collision): replaced */
	else if (se->verdict == V_SOLVED && !grid_verify(sp, &se->solution, why, sizeof why))
		keep = false;
	else if (se->verdict != fe->verdict)
		keep = se->verdict == V_SOLVED;
	else if (se->verdict == V_SOLVED && se->uniq == UNIQ_UNKNOWN && fe->uniq != UNIQ_UNKNOWN)
		keep = false;
	else
		keep = !(se->provers[0] == '\0' && fe->provers[0] != '\0');
	free(both);
	return keep;
}
