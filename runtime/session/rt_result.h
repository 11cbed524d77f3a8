/* rt_result: formats a cell's final value as text, by its C type.
 *
 * The cell's generated code selects one rt_result_show_* function with
 * _Generic and calls it (they are known to cells as __gpuc_show_*; see
 * rt_result_symbols). The text waits here until the session takes it. */
#ifndef RT_RESULT_H
#define RT_RESULT_H

#include <stddef.h>

/* Forgets any result (call before running a cell). */
void rt_result_reset(void);

/* The text of the result shown since the last reset, handed over (free()
 * it), or NULL when the cell showed none. */
char *rt_result_take(void);

/* Sets the result text directly (a copy is made). */
void rt_result_set(const char *text);

/* An HTML form of the value just set (a table for an array), shown by
 * rich front ends; taken apart (caller frees; NULL when none). */
void rt_result_set_html(const char *html);
char *rt_result_take_html(void);

void rt_result_show_int(long long v);
void rt_result_show_uint(unsigned long long v);
void rt_result_show_bool(_Bool v);
void rt_result_show_char(char v);
void rt_result_show_float(float v);
void rt_result_show_double(double v);
void rt_result_show_ldouble(long double v);
void rt_result_show_str(const char *s);
void rt_result_show_ptr(const volatile void *p);

/* Shortest "%.Ng" text of d that reads back exactly (N = 15, 16, 17). */
void rt_result_format_double(double d, char *out, size_t size);

/* What the code generated for a struct result calls (gpuc.h):
 * struct_begin with the type's name (NULL in a nested struct) and size;
 * per member struct_field with its name (NULL: members left out) and one
 * field_* or an array_begin, array_item per element until it returns 0,
 * array_end; struct_end. Too big a struct shows its size only. Members
 * are read through their address: one signature for every type. Strings
 * are capped; a char * that cannot be read shows its address. The state
 * is reset by rt_result_reset, also after a cell that faulted half-way. */
void rt_result_struct_begin(const char *type, unsigned long long size);
void rt_result_struct_field(const char *name);
void rt_result_struct_end(const char *type, unsigned long long size);
void rt_result_array_begin(void);
int rt_result_array_item(void);
void rt_result_array_end(void);
void rt_result_field_sint(const void *a, unsigned long long size);
void rt_result_field_uint(const void *a, unsigned long long size);
void rt_result_field_bool(const void *a, unsigned long long size);
void rt_result_field_char(const void *a, unsigned long long size);
void rt_result_field_float(const void *a, unsigned long long size);
void rt_result_field_double(const void *a, unsigned long long size);
void rt_result_field_ldouble(const void *a, unsigned long long size);
void rt_result_field_str(const void *a, unsigned long long size);
void rt_result_field_chars(const void *a, unsigned long long size);
void rt_result_field_ptr(const void *a, unsigned long long size);
void rt_result_field_other(const void *a, unsigned long long size);

#endif
