/* rt_lex: a small C tokenizer for splitting and analysing cells.
 *
 * It knows what the splitter must not be fooled by: // and block comments,
 * string and character literals (with escapes), preprocessor lines (one
 * token, backslash continuations included) and multi-character operators
 * (so that "==" is never taken for "="). It does not interpret anything. */
#ifndef RT_LEX_H
#define RT_LEX_H

#include <stddef.h>

typedef enum {
    RT_TOK_EOF,
    RT_TOK_IDENT,      /* identifiers and keywords */
    RT_TOK_NUMBER,
    RT_TOK_STRING,     /* "..." (an L/u/U/u8 prefix is a separate IDENT) */
    RT_TOK_CHAR,       /* '...' */
    RT_TOK_PUNCT,      /* operators and punctuators, longest match */
    RT_TOK_DIRECTIVE,  /* a whole preprocessor line, continuations included */
} rt_tok_kind_t;

typedef struct rt_tok {
    rt_tok_kind_t kind;
    size_t start, len;  /* bytes of src */
    int line;           /* 1-based line of the first byte */
    int col;            /* 1-based column of the first byte */
} rt_tok_t;

typedef struct rt_lexer {
    const char *src;
    size_t pos, end;
    int line;
    size_t line_start;      /* offset of the current line's first byte */
    int bol;                /* only blanks since the last newline */
    int unterminated;       /* set when a comment or literal runs to the end */
} rt_lexer_t;

/* Lexes src[start, end) whose first byte is on line `line`. */
void rt_lex_init(rt_lexer_t *lx, const char *src, size_t start, size_t end, int line);

/* Reads the next token into *t and returns its kind (RT_TOK_EOF at the end). */
rt_tok_kind_t rt_lex_next(rt_lexer_t *lx, rt_tok_t *t);

/* Non-zero when token t of src is exactly text. */
int rt_tok_is(const char *src, const rt_tok_t *t, const char *text);

/* Non-zero when t is the punctuator p ("(", "->", ...). */
int rt_tok_punct(const char *src, const rt_tok_t *t, const char *p);

/* Non-zero when t opens a bracket: ( [ {; closes one: ) ] }. */
int rt_tok_opens(const char *src, const rt_tok_t *t);
int rt_tok_closes(const char *src, const rt_tok_t *t);

/* The index of the token that closes the bracket group opening at toks[i]
 * (n when it is not closed), and the index just past it (n likewise). */
size_t rt_tok_match(const char *src, const rt_tok_t *toks, size_t n, size_t i);
size_t rt_tok_skip_group(const char *src, const rt_tok_t *toks, size_t n, size_t i);

/* Non-zero when t is the keyword struct, union or enum. */
int rt_tok_is_tag_keyword(const char *src, const rt_tok_t *t);

/* Tokenizes src[start, end) into a new array (caller frees *toks). Returns
 * the number of tokens (EOF not included); *unterminated as in rt_lexer_t. */
size_t rt_lex_all(const char *src, size_t start, size_t end, int line, rt_tok_t **toks,
                  int *unterminated);

/* A text read once: its tokens, which go down the layers in its place
 * (the cell runner lexes a cell once; the magic finder, the C++ test, the
 * device split and the session's compile take these). A view is a range
 * of another's tokens (a segment of the cell, the body after a magic
 * line): its v is borrowed, and src may be a text of the same layout (the
 * cell with bytes outside the range blanked). */
typedef struct rt_tokens {
    const char *src;  /* borrowed; token offsets are bytes of src */
    rt_tok_t *v;      /* n tokens; owned by rt_tokens_lex's result, borrowed in a view */
    size_t n;
    int unterminated; /* as in rt_lexer_t */
} rt_tokens_t;

/* Lexes src[start, end), whose first byte is on line `line`, into *t
 * (free with rt_tokens_free). */
void rt_tokens_lex(rt_tokens_t *t, const char *src, size_t start, size_t end, int line);

/* The index of the first token of t that starts at or after byte at (t->n
 * when none does). */
size_t rt_tokens_at(const rt_tokens_t *t, size_t at);

/* The view of t's tokens that start in [from, to), over src (t->src when
 * NULL). */
rt_tokens_t rt_tokens_view(const rt_tokens_t *t, size_t from, size_t to, const char *src);

/* Frees what rt_tokens_lex made (not a view's tokens); *t is cleared. */
void rt_tokens_free(rt_tokens_t *t);

/* Non-zero when name appears in text followed by '(' (text declares or
 * calls a function of that name). */
int rt_lex_is_function_name(const char *text, const char *name);

/* Non-zero when the directive d[0, len) ("#  word ...", as a directive
 * token's text) is #word: "include", "define", "pragma"... */
int rt_directive_is(const char *d, size_t len, const char *word);

/* Non-zero when the directive d[0, len) is #define or #undef (it changes
 * a macro). */
int rt_directive_defines(const char *d, size_t len);

/* The name of `#include <name>` or `#include "name"` in the directive
 * d[0, len) into name (cap bytes); 0 when it is no such #include. */
int rt_directive_include(const char *d, size_t len, char *name, size_t cap);

/* Receives one name; name[0, len) is borrowed for the call only. */
typedef void (*rt_name_fn)(void *ctx, const char *name, size_t len);

/* Calls fn for every name text[0, len) may use: each identifier (keywords
 * included), "struct X" / "union X" / "enum X" for a tag, and the same
 * inside preprocessor lines. */
void rt_lex_names(const char *text, size_t len, rt_name_fn fn, void *ctx);

#endif
