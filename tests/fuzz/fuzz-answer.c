/* Fuzz target: the answer codec (protocol/answer.c). Any bytes written as
 * a JSON string (a file name, a reason) come out as one valid JSON string
 * in valid UTF-8, which decodes back to the same bytes wherever they were
 * valid UTF-8; and an answer line answer_parse reads is written again by
 * the codec and reads back as the same kind. */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "lib/answer.h"

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The length of the valid UTF-8 sequence at s (n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
	if (!need || need >= n)
		return 0;
	unsigned cp = c & (need == 1 ? 0x1f : need == 2 ? 0x0f : 0x07);
	for (size_t k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	static const unsigned least[] = {0, 0x80, 0x800, 0x10000};
	if (cp < least[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

/* Checks that j (n bytes) is one JSON string in valid UTF-8, and decodes it
 * into out (U+FFFD as its 3 bytes); returns the decoded length. */
static size_t check_json_string(const char *j, size_t n, char *out)
{
	const unsigned char *u = (const unsigned char *)j;
	fuzz_check(n >= 2 && j[0] == '"' && j[n - 1] == '"');
	size_t len = 0;
	for (size_t i = 1; i < n - 1;) {
		fuzz_check(u[i] >= 0x20 && u[i] != '"');
		if (u[i] == '\\') {
			fuzz_check(i + 1 < n - 1);
			char e = j[i + 1];
			if (e == '"' || e == '\\') {
				out[len++] = e;
				i += 2;
				continue;
			}
			fuzz_check(e == 'u' && i + 5 < n - 1);
			int v = 0;
			for (int k = 2; k < 6; k++) {
				fuzz_check(hex(j[i + k]) >= 0);
				v = v * 16 + hex(j[i + k]);
			}
			fuzz_check(v < 0x20 || v == 0xfffd);
			if (v < 0x20) {
				out[len++] = (char)v;
			} else {
				memcpy(out + len, "\xef\xbf\xbd", 3);
				len += 3;
			}
			i += 6;
			continue;
		}
		size_t k = utf8_len(u + i, n - 1 - i);
		fuzz_check(k > 0);
		memcpy(out + len, j + i, k);
		len += k;
		i += k;
	}
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *back = malloc(3 * size + 8);
	fuzz_check(s && back);
	memcpy(s, data, size);
	s[size] = '\0';
	size_t slen = strlen(s);
	struct answer_buf o = {0};
	fuzz_check(answer_write_json_string(&o, s) == 0);
	size_t blen = check_json_string(o.p, o.len, back);
	/* valid UTF-8 comes back as it was */
	bool valid = true;
	for (size_t i = 0; i < slen && valid;) {
		size_t k = utf8_len((const unsigned char *)s + i, slen - i);
		valid = k > 0;
		i += k;
	}
	if (valid)
		fuzz_check(blen == slen && memcmp(back, s, slen) == 0);

	struct answer_read r;
	if (answer_parse((const char *)data, size, &r) == 0 && r.kind != ANSWER_SOLVED) {
		char *note = malloc(r.len + 1);
		fuzz_check(note);
		if (r.text)
			memcpy(note, r.text, r.len);
		note[r.text ? r.len : 0] = '\0';
		const struct answer a = {
			.kind = r.kind,
			.note = note,
			.count = r.count,
			.count_limit = r.at_least ? r.count : r.count + 1,
			.seconds = r.seconds,
		};
		o.len = 0;
		fuzz_check(answer_write_text(&o, &a, false) == 0);
		fuzz_check(o.len > 0 && o.p[o.len - 1] == '\n' && strlen(o.p) == o.len);
		struct answer_read again;
		fuzz_check(answer_parse(o.p, o.len, &again) == 0 && again.kind == r.kind);
		if (r.kind == ANSWER_MULTIPLE)
			fuzz_check(again.count == r.count);
		o.len = 0;
		fuzz_check(answer_write_json(&o, &a) == 0 && o.p[0] == '{' && o.p[o.len - 1] == '\n');
		free(note);
	}
	answer_buf_free(&o);
	free(s);
	free(back);
	return 0;
}
