/* rt_cxx: C++ host cells, text in and text out. Telling a C++ cell from a
 * C one (by markers no C code has), splitting its top level into items
 * (declarations stay at namespace scope, statements run in order in the
 * cell's entry function), and the C declarations that a C++ cell gives
 * later C cells. Compiling is the caller's (runtime/magics/rt_cpp.c). See
 * docs/cells.md, "C++ host cells". */
#ifndef RT_CXX_H
#define RT_CXX_H

#include "cm_buf.h"
#include "rt_cell.h"

/* The tests that take a cell read once take its tokens (t->src its text).
 *
 * Non-zero when t (a host cell, or a host part) is certainly C++: an
 * #include of a header without an extension (<iostream>, <vector>,
 * <cstdio>...), std::, using namespace, extern "C", namespace N {,
 * class N { or :, template <, new T, delete[] / delete p, the four casts
 * with <. Comments and strings never count,
 * nor C names such as a variable called new, class or delete. */
int rt_cxx_detect(const rt_tokens_t *t);

/* Non-zero when t uses (as an identifier) one of names[0, n). */
int rt_cxx_uses_any(const rt_tokens_t *t, const char *const *names, size_t n);

/* Non-zero when the directive d[0, len) includes a header of the CUDA
 * runtime API (cuda_runtime.h, cuda_runtime_api.h, vector_types.h,
 * device_launch_parameters.h): C++ cells have its declarations from the
 * session already, as C cells do, and NVIDIA's C++ forms would clash with
 * them. rt_cxx_blank_runtime_includes blanks such lines of code. */
int rt_cxx_runtime_include(const char *d, size_t len);
void rt_cxx_blank_runtime_includes(char *code);

/* Non-zero when the directive d[0, len) includes a header by <name>: a
 * library's header, which says its own linkage to C++ (`extern "C"` under
 * __cplusplus) and may add C++ overloads after it (cublas_api.h's
 * cublasGemmEx taking a cudaDataType): a C++ cell includes it outside the
 * extern "C" { } that holds the C cells' declarations. A header by
 * "name" (the user's own, often with no such guard) stays inside. */
int rt_cxx_library_include(const char *d, size_t len);

/* Non-zero when text uses a C++ keyword as a name (a C variable or member
 * called new, class, this...): C that C++ cannot read. */
int rt_cxx_has_keyword(const char *text);

/* Non-zero when text is C that C++ has no form of: a complex type
 * (_Complex, <complex.h>'s `complex`, _Imaginary) or a variably modified
 * parameter (`int t[rows][cols]`, a bound that names a parameter): what a
 * C cell the system C compiler took may declare (docs/cells.md). */
int rt_cxx_c_only(const char *text);

/* Non-zero when t has CUDA device words (__global__, __device__...). */
int rt_cxx_has_device_words(const rt_tokens_t *t);

/* Splits a C++ cell into its top-level items in order: RT_ITEM_DIRECTIVE,
 * RT_ITEM_DECLARATION (types, namespaces, templates, using, variables,
 * functions, extern "C" blocks), RT_ITEM_STATEMENT, and the last item as
 * RT_ITEM_EXPRESSION when it has no ';'. Caller frees with rt_cell_free. */
void rt_cxx_split(const char *code, rt_cell_t *out);

/* The name `main` is defined by the cell: 1 as `main()`, 2 with
 * parameters, 0 not defined. */
int rt_cxx_main_kind(const char *code, const rt_cell_t *items);

/* C declarations, as text for a C cell, of what the C++ cell gives C
 * code: its extern "C" functions (prototypes), its global variables of
 * C types (no initialiser) and its #define and #undef lines. is_type says which names are C types of the
 * session. NULL when there is none; else a new string. */
char *rt_cxx_c_exports(const char *code, const rt_cell_t *items, rt_is_type_fn is_type,
                       void *ctx);

/* What a later C++ cell gets of item `it` of a C++ cell (of its
 * declarator `which`, 0, 1... for `float *a, *b;`), kept by the caller: `#include`, `#define` and `using namespace` lines, types,
 * templates, namespaces, `using` aliases, const and static variables and
 * functions as written (a copy is the same thing), other global variables
 * as `extern` declarations (a reference for those rt_cxx_defer builds in
 * storage of their own) with an assembler name, the variable's own
 * (`extern std::string s __asm__("s");`: a type of the C++11 ABI would
 * add a tag to it): *is_var is set, and the caller puts that text before
 * the definition too, and gives the name the address the cell's object
 * has. Not kept: extern "C" items (C cells'
 * declarations carry them), main, `auto` variables, qualified names.
 * Returns 1 with the text in *text (appended) and the name it declares in
 * name ("" for a directive or using line); 0 when nothing is kept. */
int rt_cxx_carry(const char *code, const rt_item_t *it, int which, rt_is_type_fn is_type,
                 void *ctx, cm_buf_t *text, char *name, size_t cap, int *is_var);

/* A variable declaration of a C++ cell whose initialisers must run at
 * their place among the cell's statements, as in a C cell (`float m =
 * *std::max_element(v.begin(), v.end());` after the statements that fill
 * v): variables of C types and pointers are declared without initialiser
 * and assigned there; class types get storage of their own, the name a
 * reference to it, and are constructed there (placement new). Constants,
 * static, auto, arrays and references are as written (initialised when
 * the cell's object loads, before its statements). Returns 1 with
 * *global (the item's replacement, on its lines) and *init (statements,
 * on the item's lines and columns where they are all assignments); 0
 * when the item stays as written. */
int rt_cxx_defer(const char *code, const rt_item_t *it, rt_is_type_fn is_type, void *ctx,
                 cm_buf_t *global, cm_buf_t *init);

/* What every C++ cell's source has before the session's C declarations
 * (C11 spellings in C++), and after them (launches and results in C++:
 * rt_launch_header's _Generic helpers as templates). Static text. */
extern const char rt_cxx_prologue[];
extern const char rt_cxx_helpers[];

#endif
