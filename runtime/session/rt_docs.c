/* rt_docs: the documentation table (see rt_docs.h), sorted by name so
 * that rt_docs_find can search it. */
#include "rt_docs.h"

#include <stdlib.h>
#include <string.h>

static const rt_doc_t docs[] = {
    {"abs", "stdlib.h", "int abs(int j);",
     "Returns the absolute value of j. abs(INT_MIN) overflows; use labs/llabs for wider types."},
    {"assert", "assert.h", "void assert(scalar expression);",
     "A macro: if expression is false, prints the expression, file and line to stderr and "
     "calls abort(). Compiled out when NDEBUG is defined."},
    {"atan", "math.h", "double atan(double x);",
     "Returns the arc tangent of x in radians, between -pi/2 and pi/2."},
    {"atan2", "math.h", "double atan2(double y, double x);",
     "Returns the angle of the point (x, y) from the positive x axis, in radians between -pi "
     "and pi; the signs of both arguments pick the quadrant."},
    {"atof", "stdlib.h", "double atof(const char *s);",
     "Converts the start of s to a double. Errors go unnoticed: strtod reports them."},
    {"atoi", "stdlib.h", "int atoi(const char *s);",
     "Converts the decimal number at the start of s to an int (0 when there is none). "
     "Overflow is undefined; strtol reports errors."},
    {"bsearch", "stdlib.h",
     "void *bsearch(const void *key, const void *base, size_t n, size_t size,\n"
     "              int (*compar)(const void *, const void *));",
     "Binary search for key in the sorted array base of n elements of size bytes. Returns a "
     "pointer to a matching element, or NULL."},
    {"calloc", "stdlib.h", "void *calloc(size_t n, size_t size);",
     "Allocates zero-filled memory for an array of n elements of size bytes each. Returns NULL "
     "on failure; release it with free()."},
    {"ceil", "math.h", "double ceil(double x);",
     "Returns the smallest integral value not less than x, as a double."},
    {"clear_output", "gpuc.h", "void clear_output(int wait);",
     "The old name of gpuc_clear_output, kept for one release (docs/cells.md, \"Names\")."},
    {"clock", "time.h", "clock_t clock(void);",
     "Returns the processor time used by the program, in units of CLOCKS_PER_SEC; differences "
     "of two calls time a piece of code."},
    {"cos", "math.h", "double cos(double x);", "Returns the cosine of x, an angle in radians."},
    {"difftime", "time.h", "double difftime(time_t end, time_t start);",
     "Returns end - start in seconds, as a double."},
    {"display_html", "gpuc.h", "void display_html(const char *html);",
     "The old name of gpuc_display_html, kept for one release (docs/cells.md, \"Names\")."},
    {"display_json", "gpuc.h", "void display_json(const char *json_text);",
     "The old name of gpuc_display_json, kept for one release (docs/cells.md, \"Names\")."},
    {"display_markdown", "gpuc.h", "void display_markdown(const char *markdown);",
     "The old name of gpuc_display_markdown, kept for one release (docs/cells.md, \"Names\")."},
    {"display_mime", "gpuc.h", "void display_mime(const char *mime, const char *data);",
     "The old name of gpuc_display_mime, kept for one release (docs/cells.md, \"Names\")."},
    {"display_png", "gpuc.h", "void display_png(const void *data, size_t len);",
     "The old name of gpuc_display_png, kept for one release (docs/cells.md, \"Names\")."},
    {"display_svg", "gpuc.h", "void display_svg(const char *svg);",
     "The old name of gpuc_display_svg, kept for one release (docs/cells.md, \"Names\")."},
    {"display_text", "gpuc.h", "void display_text(const char *text);",
     "The old name of gpuc_display_text, kept for one release (docs/cells.md, \"Names\")."},
    {"exit", "stdlib.h", "void exit(int status);",
     "Ends the process after flushing stdio and running atexit handlers. In gpuc this ends "
     "the executor: the session's state is lost."},
    {"exp", "math.h", "double exp(double x);", "Returns e raised to the power x."},
    {"fabs", "math.h", "double fabs(double x);", "Returns the absolute value of x."},
    {"fclose", "stdio.h", "int fclose(FILE *stream);",
     "Flushes and closes stream. Returns 0, or EOF on error; the stream is gone either way."},
    {"fflush", "stdio.h", "int fflush(FILE *stream);",
     "Writes out what is buffered for an output stream (all output streams when stream is "
     "NULL). Returns 0, or EOF on error."},
    {"fgets", "stdio.h", "char *fgets(char *s, int size, FILE *stream);",
     "Reads one line, newline included, of at most size - 1 characters into s and terminates "
     "it. Returns s, or NULL at end of file or on error."},
    {"floor", "math.h", "double floor(double x);",
     "Returns the largest integral value not greater than x, as a double."},
    {"fmax", "math.h", "double fmax(double x, double y);",
     "Returns the larger of x and y; if one is NaN, returns the other."},
    {"fmin", "math.h", "double fmin(double x, double y);",
     "Returns the smaller of x and y; if one is NaN, returns the other."},
    {"fmod", "math.h", "double fmod(double x, double y);",
     "Returns the remainder of x / y rounded toward zero, with the sign of x."},
    {"fopen", "stdio.h", "FILE *fopen(const char *path, const char *mode);",
     "Opens the file at path with a mode such as \"r\", \"w\", \"a\" or \"rb\". Returns the "
     "stream, or NULL with errno set."},
    {"fprintf", "stdio.h", "int fprintf(FILE *stream, const char *format, ...);",
     "Like printf, but writes to stream (stderr, a file from fopen). Returns the number of "
     "bytes written, or a negative value on error."},
    {"fputs", "stdio.h", "int fputs(const char *s, FILE *stream);",
     "Writes the string s to stream, without adding a newline. Returns a non-negative value, "
     "or EOF on error."},
    {"fread", "stdio.h", "size_t fread(void *ptr, size_t size, size_t n, FILE *stream);",
     "Reads up to n elements of size bytes from stream into ptr. Returns the number of whole "
     "elements read; fewer means end of file or an error (feof/ferror tell which)."},
    {"free", "stdlib.h", "void free(void *ptr);",
     "Releases memory from malloc, calloc, realloc or strdup. free(NULL) does nothing; freeing "
     "twice or using the memory afterwards is undefined."},
    {"fwrite", "stdio.h", "size_t fwrite(const void *ptr, size_t size, size_t n, FILE *stream);",
     "Writes n elements of size bytes from ptr to stream. Returns the number of elements "
     "written; fewer than n means an error."},
    {"getchar", "stdio.h", "int getchar(void);",
     "Reads the next character from stdin as an unsigned char in an int, or EOF. In gpuc a "
     "read of stdin opens an input box in front ends that offer one (JupyterLab, console); "
     "elsewhere (nbconvert, papermill, gpuc run) it gets EOF."},
    {"getenv", "stdlib.h", "char *getenv(const char *name);",
     "Returns the value of environment variable name, or NULL if it is not set. Do not modify "
     "or free the string."},
    {"gpuc_clear_output", "gpuc.h", "void gpuc_clear_output(int wait);",
     "Clears the output of the current cell. With wait non-zero the notebook clears it only when "
     "the next output arrives, which avoids flicker in animations."},
    {"gpuc_display_html", "gpuc.h", "void gpuc_display_html(const char *html);",
     "Shows an HTML fragment as an output of the cell (text/html)."},
    {"gpuc_display_json", "gpuc.h", "void gpuc_display_json(const char *json_text);",
     "Shows JSON, given as text, as an output of the cell (application/json). The text must be "
     "valid JSON."},
    {"gpuc_display_markdown", "gpuc.h", "void gpuc_display_markdown(const char *markdown);",
     "Shows Markdown text, rendered by the notebook, as an output of the cell (text/markdown)."},
    {"gpuc_display_mime", "gpuc.h", "void gpuc_display_mime(const char *mime, const char *data);",
     "Shows data under any MIME type as an output of the cell, e.g. "
     "display_mime(\"text/latex\", \"$x^2$\")."},
    {"gpuc_display_png", "gpuc.h", "void gpuc_display_png(const void *data, size_t len);",
     "Shows a PNG image given as len bytes of an encoded PNG file; gpuc base64-encodes it."},
    {"gpuc_display_svg", "gpuc.h", "void gpuc_display_svg(const char *svg);",
     "Shows an SVG image, given as its XML text, as an output of the cell (image/svg+xml)."},
    {"gpuc_display_text", "gpuc.h", "void gpuc_display_text(const char *text);",
     "Shows plain text as a separate output of the cell (text/plain), unlike printf, which "
     "writes to the cell's stdout stream."},
    {"hypot", "math.h", "double hypot(double x, double y);",
     "Returns sqrt(x*x + y*y) without overflow or underflow in the intermediate squares."},
    {"isalnum", "ctype.h", "int isalnum(int c);",
     "Non-zero when c is a letter or a decimal digit. c must be EOF or an unsigned char value."},
    {"isalpha", "ctype.h", "int isalpha(int c);",
     "Non-zero when c is a letter in the current locale. c must be EOF or an unsigned char "
     "value: cast a char to unsigned char first."},
    {"isdigit", "ctype.h", "int isdigit(int c);",
     "Non-zero when c is a decimal digit '0' to '9'. c must be EOF or an unsigned char value."},
    {"isspace", "ctype.h", "int isspace(int c);",
     "Non-zero for white space: space, \\t, \\n, \\v, \\f and \\r. c must be EOF or an "
     "unsigned char value."},
    {"labs", "stdlib.h", "long labs(long j);", "Returns the absolute value of the long j."},
    {"log", "math.h", "double log(double x);",
     "Returns the natural logarithm of x; log(0) is -HUGE_VAL and a negative x gives NaN."},
    {"log10", "math.h", "double log10(double x);", "Returns the base-10 logarithm of x."},
    {"malloc", "stdlib.h", "void *malloc(size_t size);",
     "Allocates size bytes of uninitialised memory. Returns NULL on failure; release it with "
     "free()."},
    {"memcmp", "string.h", "int memcmp(const void *a, const void *b, size_t n);",
     "Compares the first n bytes of a and b as unsigned chars. Returns a negative value, zero "
     "or a positive value as a is less than, equal to or greater than b."},
    {"memcpy", "string.h", "void *memcpy(void *dest, const void *src, size_t n);",
     "Copies n bytes from src to dest and returns dest. The areas must not overlap: use "
     "memmove when they can."},
    {"memmove", "string.h", "void *memmove(void *dest, const void *src, size_t n);",
     "Copies n bytes from src to dest, correctly even when the areas overlap. Returns dest."},
    {"memset", "string.h", "void *memset(void *s, int c, size_t n);",
     "Fills the first n bytes of s with the byte value c and returns s."},
    {"perror", "stdio.h", "void perror(const char *s);",
     "Writes s, a colon and the message for the current errno to stderr."},
    {"pow", "math.h", "double pow(double x, double y);",
     "Returns x raised to the power y. A negative x with a non-integral y gives NaN."},
    {"printf", "stdio.h", "int printf(const char *format, ...);",
     "Writes the arguments to stdout as format describes (%d, %u, %ld, %zu, %f, %g, %e, %s, "
     "%c, %p, %x, %%). Returns the number of bytes written, or a negative value on error."},
    {"putchar", "stdio.h", "int putchar(int c);",
     "Writes the character c to stdout. Returns c, or EOF on error."},
    {"puts", "stdio.h", "int puts(const char *s);",
     "Writes the string s and a newline to stdout. Returns a non-negative value, or EOF on "
     "error."},
    {"qsort", "stdlib.h",
     "void qsort(void *base, size_t n, size_t size,\n"
     "           int (*compar)(const void *, const void *));",
     "Sorts the array base of n elements of size bytes in place. compar gets pointers to two "
     "elements and returns a negative, zero or positive value to order them."},
    {"rand", "stdlib.h", "int rand(void);",
     "Returns a pseudo-random integer between 0 and RAND_MAX. The sequence repeats unless "
     "seeded with srand; not suitable for cryptography."},
    {"realloc", "stdlib.h", "void *realloc(void *ptr, size_t size);",
     "Resizes the block at ptr to size bytes, moving it if needed, and returns the new "
     "address. On failure it returns NULL and ptr stays valid, so keep the old pointer."},
    {"round", "math.h", "double round(double x);",
     "Returns x rounded to the nearest integral value, halfway cases away from zero."},
    {"sin", "math.h", "double sin(double x);", "Returns the sine of x, an angle in radians."},
    {"snprintf", "stdio.h", "int snprintf(char *s, size_t size, const char *format, ...);",
     "Like printf, but writes at most size bytes, terminator included, into s. Returns the "
     "length the whole output would have: a result >= size means it was cut."},
    {"sprintf", "stdio.h", "int sprintf(char *s, const char *format, ...);",
     "Like printf, but writes into s and terminates it. Nothing limits the length: prefer "
     "snprintf."},
    {"sqrt", "math.h", "double sqrt(double x);",
     "Returns the non-negative square root of x; a negative x gives NaN."},
    {"srand", "stdlib.h", "void srand(unsigned int seed);",
     "Seeds the sequence rand() returns; the same seed gives the same sequence. srand(time(NULL)) "
     "gives a different one each run."},
    {"sscanf", "stdio.h", "int sscanf(const char *s, const char *format, ...);",
     "Reads values from the string s as format describes, storing them through the pointer "
     "arguments. Returns how many were stored, or EOF if s ended first."},
    {"strcat", "string.h", "char *strcat(char *dest, const char *src);",
     "Appends src to the end of the string dest and returns dest. dest must have room for both "
     "and the terminator."},
    {"strchr", "string.h", "char *strchr(const char *s, int c);",
     "Returns a pointer to the first occurrence of the character c in s, or NULL if there is "
     "none."},
    {"strcmp", "string.h", "int strcmp(const char *a, const char *b);",
     "Compares two strings byte by byte. Returns a negative value, zero or a positive value as "
     "a sorts before, equal to or after b."},
    {"strcpy", "string.h", "char *strcpy(char *dest, const char *src);",
     "Copies the string src, terminator included, to dest and returns dest. dest must be large "
     "enough; nothing checks it."},
    {"strdup", "string.h", "char *strdup(const char *s);",
     "Returns a new copy of s in memory from malloc (release it with free), or NULL when out "
     "of memory."},
    {"strerror", "string.h", "char *strerror(int errnum);",
     "Returns the message text for the error number errnum (such as errno). Do not modify it."},
    {"strlen", "string.h", "size_t strlen(const char *s);",
     "Returns the number of bytes in s before its terminating '\\0'."},
    {"strncmp", "string.h", "int strncmp(const char *a, const char *b, size_t n);",
     "Like strcmp, but compares at most the first n bytes."},
    {"strncpy", "string.h", "char *strncpy(char *dest, const char *src, size_t n);",
     "Copies at most n bytes of src to dest, padding with '\\0' up to n. If src is n bytes or "
     "longer, dest is NOT terminated."},
    {"strrchr", "string.h", "char *strrchr(const char *s, int c);",
     "Returns a pointer to the last occurrence of the character c in s, or NULL."},
    {"strstr", "string.h", "char *strstr(const char *haystack, const char *needle);",
     "Returns a pointer to the first occurrence of the string needle in haystack, or NULL."},
    {"strtod", "stdlib.h", "double strtod(const char *s, char **end);",
     "Converts the floating-point number at the start of s. *end (when end is not NULL) gets "
     "where parsing stopped; out of range sets errno to ERANGE."},
    {"strtok", "string.h", "char *strtok(char *s, const char *delim);",
     "Splits s into tokens separated by characters of delim: the first call passes s, later "
     "ones NULL. It writes '\\0' into s and keeps state between calls."},
    {"strtol", "stdlib.h", "long strtol(const char *s, char **end, int base);",
     "Converts the integer at the start of s in base 2 to 36 (0: from its prefix, 0x or 0). "
     "*end gets where parsing stopped; overflow gives LONG_MAX or LONG_MIN and ERANGE."},
    {"tan", "math.h", "double tan(double x);", "Returns the tangent of x, an angle in radians."},
    {"time", "time.h", "time_t time(time_t *t);",
     "Returns the current calendar time in seconds since 1970-01-01 UTC, also stored in *t "
     "when t is not NULL."},
    {"tolower", "ctype.h", "int tolower(int c);",
     "Returns the lower-case form of the letter c, or c unchanged. c must be EOF or an unsigned "
     "char value."},
    {"toupper", "ctype.h", "int toupper(int c);",
     "Returns the upper-case form of the letter c, or c unchanged. c must be EOF or an unsigned "
     "char value."},
    {"trunc", "math.h", "double trunc(double x);",
     "Returns x rounded toward zero to an integral value."},
};

static int by_name(const void *key, const void *elem)
{
    return strcmp(key, ((const rt_doc_t *)elem)->name);
}

const rt_doc_t *rt_docs_find(const char *name)
{
    return bsearch(name, docs, sizeof docs / sizeof docs[0], sizeof docs[0], by_name);
}
