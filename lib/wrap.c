/* Wrapped text (wrap.h). */
#include "config.h"

#include "wrap.h"

#include <string.h>

/* Columns taken by n bytes of UTF-8: the bytes that begin a character. */
static int display_width(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

/* Bytes of the n-byte UTF-8 word s that fill at most cols columns (at
 * least one character, so that a cut always moves on). */
static size_t bytes_in_columns(const char *s, size_t n, int cols)
{
	size_t i = 0;
	int w = 0;
	while (i < n) {
		size_t next = i + 1;
		while (next < n && ((unsigned char)s[next] & 0xC0) == 0x80)
			next++;
		if (w + 1 > cols && i > 0)
			break;
		w++;
		i = next;
	}
	return i;
}

static bool ends_clause(const char *word, size_t n)
{
	return n && (word[n - 1] == ',' || word[n - 1] == ';');
}

/* At a break after a ',' or ';' (col is where it stands), whether the line
 * ends here: the rest of its paragraph passes the last column before
 * another such break, in the second half of the line, is met. */
static bool clause_break_here(const char *p, int col, int mid)
{
	for (;;) {
		size_t spaces = strspn(p, " ");
		size_t word = strcspn(p + spaces, " \n");
		if (word == 0)
			return false; /* the rest fits */
		col += (int)spaces + display_width(p + spaces, word);
		if (col > WRAP_COLUMNS)
			return true;
		p += spaces + word;
		if (*p == ' ' && col > mid && ends_clause(p - word, word))
			return false; /* a later one */
	}
}

void print_wrapped(FILE *f, const char *text, struct wrap w)
{
	int col = w.at;
	int wrap_at = w.indent; /* where a broken rest of this line goes on */
	int start = w.at;       /* where this line's text started */
	const char *p = text;
	while (*p) {
		if (*p == '\n') {
			p++;
			int lead = w.indent + (int)strspn(p, " ");
			p += strspn(p, " ");
			fprintf(f, "\n%*s", lead, "");
			col = start = lead;
			wrap_at = lead + w.hang;
			continue;
		}
		size_t spaces = strspn(p, " ");
		size_t word = strcspn(p + spaces, " \n");
		int width = display_width(p + spaces, word);
		const int mid = start + (WRAP_COLUMNS - start) / 2;
		bool fits = col + (int)spaces + width <= WRAP_COLUMNS;
		bool clause = w.clauses && spaces && word && col > mid && p > text &&
			      ends_clause(text, (size_t)(p - text)) && clause_break_here(p, col, mid);
		if (clause || (!fits && col > wrap_at)) {
			fprintf(f, "\n%*s", wrap_at, "");
			col = start = wrap_at;
			p += spaces;
			continue; /* the word again, at the line's start */
		}
		if (!fits && word && col + (int)spaces < WRAP_COLUMNS) {
			/* too long for any line: what fits, the rest on the next */
			size_t cut = bytes_in_columns(p + spaces, word, WRAP_COLUMNS - col - (int)spaces);
			fprintf(f, "%.*s\n%*s", (int)(spaces + cut), p, wrap_at, "");
			col = start = wrap_at;
			p += spaces + cut;
			continue;
		}
		fprintf(f, "%.*s", (int)(spaces + word), p);
		col += (int)spaces + width;
		p += spaces + word;
	}
	fputc('\n', f);
}
