/* rt_cxx_text: the fixed text of every C++ cell's source (see rt_cxx.h):
 * C11 spellings in C++, and the C++ forms of rt_launch_header's _Generic
 * helpers and of the result display. */
#include "rt_cxx.h"

#include "gpu.h"

const char rt_cxx_prologue[] =
    "#define _Alignas(n) alignas(n)\n"
    "#define _Bool bool\n"
    "#define _Noreturn [[noreturn]]\n"
    "#include <new>\n"
    "#include <type_traits>\n"
    "#include <initializer_list>\n"
    "#include <exception>\n"
    "#include <cxxabi.h>\n";

#define VECTOR_TRAIT(t, b, n, a) "template <> struct __gpuc_vector<" #t "> : std::true_type {};\n"
#define HALF_TRAIT(t, a) "template <> struct __gpuc_vector<" #t "> : std::true_type {};\n"
#define VECTOR_NAME(t, b, n, a) "template <> inline const char *__gpuc_type_of<" #t ">() { return \"" #t "\"; }\n"
#define HALF_NAME(t, a) "template <> inline const char *__gpuc_type_of<" #t ">() { return \"" #t "\"; }\n"
#define SCALAR_NAME(t) "template <> inline const char *__gpuc_type_of<" t ">() { return \"" t "\"; }\n"

const char rt_cxx_helpers[] =
    "template <class T> struct __gpuc_vector : std::false_type {};\n"
    GPU_VECTOR_TYPES(VECTOR_TRAIT) GPU_HALF_TYPES(HALF_TRAIT)
    /* what an argument is, as rt_launch_header's __gpuc_kind says */
    "template <class T> constexpr char __gpuc_kind_of() {\n"
    "  return std::is_same<T, bool>::value ? 'u'\n"
    "       : std::is_enum<T>::value ? 'i'\n"
    "       : std::is_integral<T>::value ? (std::is_signed<T>::value ? 'i' : 'u')\n"
    "       : std::is_same<T, float>::value ? 'f' : std::is_same<T, double>::value ? 'd'\n"
    "       : std::is_same<T, long double>::value ? 'l'\n"
    "       : std::is_same<T, struct ga_array *>::value ? 'a'\n"
    "       : __gpuc_vector<T>::value ? 'v' : 'p';\n"
    "}\n"
    "template <class T> inline const char *__gpuc_type_of() { return nullptr; }\n"
    SCALAR_NAME("bool") SCALAR_NAME("char") SCALAR_NAME("signed char")
    SCALAR_NAME("unsigned char") SCALAR_NAME("short") SCALAR_NAME("unsigned short")
    SCALAR_NAME("int") SCALAR_NAME("unsigned int") SCALAR_NAME("long")
    SCALAR_NAME("unsigned long") SCALAR_NAME("long long") SCALAR_NAME("unsigned long long")
    SCALAR_NAME("float") SCALAR_NAME("double") SCALAR_NAME("long double")
    GPU_VECTOR_TYPES(VECTOR_NAME) GPU_HALF_TYPES(HALF_NAME)
    "#undef __gpuc_is_dim3\n#undef __gpuc_kind\n#undef __gpuc_type\n"
    "#define __gpuc_bare(v) typename std::remove_cv<__typeof__(v)>::type\n"
    "#define __gpuc_is_dim3(v) (std::is_same<__gpuc_bare(v), dim3>::value ? 1 : 0)\n"
    "#define __gpuc_kind(v) __gpuc_kind_of<__gpuc_bare(v)>()\n"
    "#define __gpuc_type(v) __gpuc_type_of<__gpuc_bare(v)>()\n"
    /* the launch's arrays are initializer lists in C++ (rt_cpp.c): const */
    "static inline int __gpuc_launch(const char *k, const void *g, int gd, unsigned gs,\n"
    "    const void *b, int bd, unsigned bs, unsigned long long sh, void *st, int n,\n"
    "    void *const *a, const unsigned long long *sz, const char *kinds,\n"
    "    const char *const *types, int cell, int line) {\n"
    "  return __gpuc_launch(k, g, gd, gs, b, bd, bs, sh, st, n, const_cast<void **>(a), sz,\n"
    "                       kinds, const_cast<const char **>(types), cell, line);\n"
    "}\n"
    /* the cell's last expression: shown by its type, as in C cells */
    "template <class T, class = void> struct __gpuc_has_c_str : std::false_type {};\n"
    "template <class T> struct __gpuc_has_c_str<T,\n"
    "    std::void_t<decltype(std::declval<const T &>().c_str())>> : std::true_type {};\n"
    "template <class T> inline void __gpuc_show_cxx(const T &v) {\n"
    "  typedef typename std::decay<T>::type D;\n"
    "  if constexpr (std::is_same<D, bool>::value) __gpuc_show_bool(v);\n"
    "  else if constexpr (std::is_same<D, char>::value) __gpuc_show_char(v);\n"
    "  else if constexpr (std::is_enum<D>::value) __gpuc_show_int((long long)v);\n"
    "  else if constexpr (std::is_integral<D>::value && std::is_signed<D>::value)\n"
    "    __gpuc_show_int(v);\n"
    "  else if constexpr (std::is_integral<D>::value) __gpuc_show_uint(v);\n"
    "  else if constexpr (std::is_same<D, float>::value) __gpuc_show_float(v);\n"
    "  else if constexpr (std::is_same<D, double>::value) __gpuc_show_double(v);\n"
    "  else if constexpr (std::is_same<D, long double>::value) __gpuc_show_ldouble(v);\n"
    "  else if constexpr (std::is_same<D, char *>::value || std::is_same<D, const char *>::value)\n"
    "    __gpuc_show_str(v);\n"
    "  else if constexpr (std::is_same<D, ga_t>::value) __gpuc_show_array(v);\n"
    "  else if constexpr (std::is_pointer<D>::value) __gpuc_show_ptr((const void *)v);\n"
    "  else if constexpr (__gpuc_has_c_str<D>::value) __gpuc_show_str(v.c_str());\n"
    "}\n"
    /* (expr, __gpuc_shown{}): a void expression shows nothing */
    "struct __gpuc_shown {};\n"
    "template <class T> inline void operator,(const T &v, __gpuc_shown) { __gpuc_show_cxx(v); }\n";
