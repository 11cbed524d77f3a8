/* rt_cuda_header: the C declarations host cells see for the CUDA runtime
 * API (rt_cuda_header.h).
 *
 * Host cells call the real libcudart (loaded RTLD_GLOBAL by
 * gpu_runtime_load), or the simulator's runtime. Their declarations are
 * NVIDIA's own cuda_runtime_api.h of the toolkit that matches the loaded
 * libcudart, made C-ready here; where no such header is found (a machine
 * with the simulator only), gpuc's own subset below, of what tutorial code
 * uses. Either way:
 * - dim3 is a plain C struct (`dim3 b(16, 16);` is rewritten into C); in
 *   C++ host cells it has CUDA's constructor too.
 * - The vector types are C structs with the alignment nvcc gives them, so a
 *   struct holding a float4 is laid out alike on both sides; make_float4 &
 *   co are static inline functions. __half and __nv_bfloat16 are their bits
 *   (`__x`), with the host conversions __float2half, __half2float,
 *   __float2bfloat16 and __bfloat162float: C has no 16-bit float. (`half`
 *   and `nv_bfloat16`, cuda_fp16.h's short names, are left to the cells: a
 *   variable named half is common.)
 * - cudaMalloc and cudaFree are tracked, and the cuda*Symbol functions take
 *   device variables by name (the macros at the end).
 * The subset's differences from NVIDIA's header: cudaMalloc,
 * cudaMallocManaged and cudaMallocHost take `void *` first, so `float **`
 * compiles without a cast; cudaDeviceProp is gpuc's struct of the common
 * fields (GPU_DEVICE_PROPS in gpu.h); three default arguments are macros
 * (cudaEventRecord(e), cudaMallocManaged(&p, n), cudaMemcpyAsync(d, s, n,
 * kind)), and so is the C++ overload cudaEventCreate(&e, flags). Its
 * error and enum values were checked against CUDA 13.0's driver_types.h.
 *
 * NVIDIA's header is C when __cplusplus is not defined, and TCC parses it
 * once four macros its compiler check does not define for TCC are given.
 * What C lacks is made here from the header's text:
 * - default arguments (`__dv(v)` or `= v` in NVIDIA's declarations, 67 in
 *   CUDA 13.0): a macro per function picks, by the number of arguments
 *   given, a form that fills the rest in;
 * - `void **` parameters take `float **` as C++ code passes them: the same
 *   macros cast those arguments;
 * - cuda_runtime.h's C++ overloads with another number of arguments
 *   (`cudaGraphInstantiate(&exec, graph, NULL, NULL, 0)`,
 *   `cudaEventCreate(&e, flags)`, `cudaMallocHost(&p, n, flags)`,
 *   `cudaGraphExecUpdate(exec, graph, &node, &result)`): the same macros
 *   pick them by the count, in C and C++ host cells;
 * - C++ names structs and enums without the keyword (`cudaDeviceProp p;`):
 *   a typedef of the same name for each;
 * - cudaDeviceProp: libcudart fills the real struct on a GPU; on the
 *   simulator the fields gpuc knows (gpu_device_props_t) that this
 *   version's struct has are copied in, the others left 0.
 * Language only: which libcudart is loaded, and where from, is the
 * backend's (gpu_runtime_library). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "cm_file.h"
#include "gpu.h"
#include "rt_cuda_header.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* A vector type and its make_ function. TCC honours _Alignas on a first
 * member (not an aligned attribute on the struct), so x carries the
 * alignment, alone in its declaration. */
#define MEMBERS1(b) ""
#define MEMBERS2(b) " " #b " y;"
#define MEMBERS3(b) " " #b " y, z;"
#define MEMBERS4(b) " " #b " y, z, w;"
#define PARAMS1(b) #b " x"
#define PARAMS2(b) PARAMS1(b) ", " #b " y"
#define PARAMS3(b) PARAMS2(b) ", " #b " z"
#define PARAMS4(b) PARAMS3(b) ", " #b " w"
#define SET1 " v.x = x;"
#define SET2 SET1 " v.y = y;"
#define SET3 SET2 " v.z = z;"
#define SET4 SET3 " v.w = w;"
#define VECTOR_DEF(t, b, n, a)                                                                     \
    "typedef struct " #t " { _Alignas(" #a ") " #b " x;" MEMBERS##n(b) " } " #t ";\n"           \
    "static inline " #t " make_" #t "(" PARAMS##n(b) ") { " #t " v;" SET##n " return v; }\n"

/* What both forms share, first: dim3 and the vector types (NVIDIA's
 * vector_types.h is not used: TCC does not align its structs), the 2-byte
 * floats, and gpuc's own device properties. */
static const char types[] =
    "typedef struct dim3 { unsigned int x, y, z;\n"
    "#ifdef __cplusplus\n" /* C++ host cells: `dim3 grid(n / 256), block(256);` */
    "  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)\n"
    "    : x(vx), y(vy), z(vz) {}\n"
    "#endif\n"
    "} dim3;\n"
    GPU_VECTOR_TYPES(VECTOR_DEF)
    /* cuda_fp16.h's and cuda_bf16.h's types as bits, with the host
     * conversions (round to nearest even, as NVIDIA's) */
    "typedef struct __half { _Alignas(2) unsigned short __x; } __half;\n"
    "typedef struct __half2 { _Alignas(4) __half x; __half y; } __half2;\n"
    "typedef struct __nv_bfloat16 { _Alignas(2) unsigned short __x; } __nv_bfloat16;\n"
    "typedef struct __nv_bfloat162 { _Alignas(4) __nv_bfloat16 x; __nv_bfloat16 y; } "
    "__nv_bfloat162;\n"
    "static inline unsigned __gpuc_float_bits(float f)\n"
    "{ union { float f; unsigned u; } v; v.f = f; return v.u; }\n"
    "static inline float __gpuc_bits_float(unsigned u)\n"
    "{ union { float f; unsigned u; } v; v.u = u; return v.f; }\n"
    "static inline __half __float2half(float f)\n"
    "{\n"
    "    unsigned u = __gpuc_float_bits(f), a = u & 0x7fffffffu, q;\n"
    "    __half h;\n"
    "    h.__x = (unsigned short)((u >> 16) & 0x8000u);\n"
    "    if (a > 0x7f800000u) { h.__x |= 0x7e00; return h; }\n"
    "    if (a >= 0x477ff000u) { h.__x |= 0x7c00; return h; }\n"
    "    if (a >= 0x38800000u) {\n"
    "        h.__x |= (unsigned short)((a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13);\n"
    "        return h;\n"
    "    }\n"
    "    int shift = 126 - (int)(a >> 23);\n"
    "    if (shift > 24) return h;\n"
    "    unsigned m = (a & 0x7fffffu) | 0x800000u, rem = m & ((1u << shift) - 1u);\n"
    "    unsigned mid = 1u << (shift - 1);\n"
    "    q = m >> shift;\n"
    "    q += rem > mid || (rem == mid && (q & 1u));\n"
    "    h.__x |= (unsigned short)q;\n"
    "    return h;\n"
    "}\n"
    "static inline float __half2float(__half h)\n"
    "{\n"
    "    unsigned s = (unsigned)(h.__x & 0x8000u) << 16, e = (h.__x >> 10) & 0x1fu;\n"
    "    unsigned m = h.__x & 0x3ffu;\n"
    "    if (e == 0x1f) return __gpuc_bits_float(s | 0x7f800000u | (m << 13));\n"
    "    if (e) return __gpuc_bits_float(s | ((e + 112u) << 23) | (m << 13));\n"
    "    if (!m) return __gpuc_bits_float(s);\n"
    "    for (e = 113; !(m & 0x400u); e--) m <<= 1;\n"
    "    return __gpuc_bits_float(s | (e << 23) | ((m & 0x3ffu) << 13));\n"
    "}\n"
    "static inline __half2 __floats2half2_rn(float a, float b)\n"
    "{ __half2 v; v.x = __float2half(a); v.y = __float2half(b); return v; }\n"
    "static inline __nv_bfloat16 __float2bfloat16(float f)\n"
    "{\n"
    "    unsigned u = __gpuc_float_bits(f);\n"
    "    __nv_bfloat16 b;\n"
    "    b.__x = (u & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((u >> 16) | 0x40u)\n"
    "            : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n"
    "    return b;\n"
    "}\n"
    "static inline float __bfloat162float(__nv_bfloat16 b)\n"
    "{ return __gpuc_bits_float((unsigned)b.__x << 16); }\n"
    "struct gpu_device_props { " STR(GPU_DEVICE_PROPS(GPU_PROP_FIELD)) " };\n"
    "int __gpuc_simulating(void);\n"
    "int __gpuc_device_props(struct gpu_device_props *prop, int device);\n";

/* gpuc's own declarations of the runtime API, where no toolkit header
 * matches the runtime: what tutorial code uses. */
static const char subset[] =
    "typedef enum cudaError {\n"
    "    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,\n"
    "    cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4,\n"
    "    cudaErrorInvalidConfiguration = 9, cudaErrorInvalidSymbol = 13,\n"
    "    cudaErrorInvalidDevicePointer = 17,\n"
    "    cudaErrorInvalidMemcpyDirection = 21, cudaErrorInsufficientDriver = 35,\n"
    "    cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100,\n"
    "    cudaErrorInvalidDevice = 101, cudaErrorInvalidKernelImage = 200,\n"
    "    cudaErrorNoKernelImageForDevice = 209, cudaErrorInvalidResourceHandle = 400,\n"
    "    cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700,\n"
    "    cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702,\n"
    "    cudaErrorAssert = 710, cudaErrorHardwareStackError = 714,\n"
    "    cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716,\n"
    "    cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999\n"
    "} cudaError_t;\n"
    "enum cudaMemcpyKind {\n"
    "    cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,\n"
    "    cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4\n"
    "};\n"
    "typedef struct CUstream_st *cudaStream_t;\n"
    "typedef struct CUevent_st *cudaEvent_t;\n"
    "#define cudaStreamDefault 0x00\n"
    "#define cudaStreamNonBlocking 0x01\n"
    "#define cudaEventDefault 0x00\n"
    "#define cudaEventBlockingSync 0x01\n"
    "#define cudaEventDisableTiming 0x02\n"
    "#define cudaMemAttachGlobal 0x01\n"
    "#define cudaMemAttachHost 0x02\n"
    "#define cudaHostAllocDefault 0x00\n"
    "cudaError_t cudaMalloc(void *devPtr, size_t size);\n"
    "cudaError_t cudaMallocManaged(void *devPtr, size_t size, unsigned int flags);\n"
    "cudaError_t cudaMallocHost(void *ptr, size_t size);\n"
    "cudaError_t cudaFree(void *devPtr);\n"
    "cudaError_t cudaFreeHost(void *ptr);\n"
    "cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);\n"
    "cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,\n"
    "                            enum cudaMemcpyKind kind, cudaStream_t stream);\n"
    "cudaError_t cudaMemset(void *devPtr, int value, size_t count);\n"
    "cudaError_t cudaDeviceSynchronize(void);\n"
    "cudaError_t cudaDeviceReset(void);\n"
    "cudaError_t cudaGetLastError(void);\n"
    "cudaError_t cudaPeekAtLastError(void);\n"
    "const char *cudaGetErrorString(cudaError_t error);\n"
    "const char *cudaGetErrorName(cudaError_t error);\n"
    "cudaError_t cudaGetDeviceCount(int *count);\n"
    "cudaError_t cudaSetDevice(int device);\n"
    "cudaError_t cudaGetDevice(int *device);\n"
    "cudaError_t cudaMemGetInfo(size_t *free, size_t *total);\n"
    "cudaError_t cudaEventCreate(cudaEvent_t *event);\n"
    "cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);\n"
    "cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);\n"
    "cudaError_t cudaEventSynchronize(cudaEvent_t event);\n"
    "cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);\n"
    "cudaError_t cudaEventDestroy(cudaEvent_t event);\n"
    "cudaError_t cudaStreamCreate(cudaStream_t *stream);\n"
    "cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);\n"
    "cudaError_t cudaStreamDestroy(cudaStream_t stream);\n"
    "cudaError_t cudaStreamSynchronize(cudaStream_t stream);\n"
    "cudaError_t cudaRuntimeGetVersion(int *version);\n"
    "cudaError_t cudaDriverGetVersion(int *version);\n"
    "struct cudaDeviceProp { " STR(GPU_DEVICE_PROPS(GPU_PROP_FIELD)) " };\n"
    "typedef struct cudaDeviceProp cudaDeviceProp;\n"
    "struct cudaFuncAttributes {\n"
    "    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;\n"
    "    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;\n"
    "    int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;\n"
    "    int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;\n"
    "    int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];\n"
    "};\n"
    "enum cudaFuncAttribute {\n"
    "    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,\n"
    "    cudaFuncAttributePreferredSharedMemoryCarveout = 9\n"
    "};\n"
    "enum cudaFuncCache {\n"
    "    cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1,\n"
    "    cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3\n"
    "};\n"
    "#define cudaGetDeviceProperties(prop, device) \\\n"
    "    ((cudaError_t)__gpuc_device_props((struct gpu_device_props *)(prop), (device)))\n"
    "/* the default arguments of NVIDIA's C++ header, for C: a call may leave\n"
    " * the last argument out (cudaEventRecord(start)) */\n"
    "#define cudaEventRecord(...) \\\n"
    "    __gpuc_pick3(__VA_ARGS__, , (cudaEventRecord), __gpuc_event_record1, )(__VA_ARGS__)\n"
    "#define __gpuc_event_record1(e) (cudaEventRecord)((e), (cudaStream_t)0)\n"
    "#define cudaEventCreate(...) \\\n"
    "    __gpuc_pick3(__VA_ARGS__, , __gpuc_event_create2, (cudaEventCreate), )(__VA_ARGS__)\n"
    "#define __gpuc_event_create2(e, f) cudaEventCreateWithFlags((e), (f))\n"
    "#define cudaMallocManaged(...) \\\n"
    "    __gpuc_pick4(__VA_ARGS__, , (cudaMallocManaged), __gpuc_managed2, , )(__VA_ARGS__)\n"
    "#define __gpuc_managed2(p, n) (cudaMallocManaged)((p), (n), cudaMemAttachGlobal)\n"
    "#define cudaMemcpyAsync(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, (cudaMemcpyAsync), __gpuc_memcpy_async4, , , )(__VA_ARGS__)\n"
    "#define __gpuc_memcpy_async4(d, s, n, k) (cudaMemcpyAsync)((d), (s), (n), (k), (cudaStream_t)0)\n";

/* gpuc's macros over either form: allocations it tracks, device variables
 * by name. */
static const char macros[] =
    /* a macro's form by its argument count (the subset's defaults too) */
    "#define __gpuc_pick3(a, b, c, name, ...) name\n"
    "#define __gpuc_pick4(a, b, c, d, name, ...) name\n"
    "#define __gpuc_pick5(a, b, c, d, e, name, ...) name\n"
    "#define __gpuc_pick6(a, b, c, d, e, f, name, ...) name\n"
    "/* gpuc keeps a list of what cudaMalloc gave, so that a lost GPU context\n"
    " * can say what was lost, and says why an allocation failed */\n"
    "#define cudaMalloc(ptr, size) __gpuc_cuda_malloc((ptr), (size), #ptr, __LINE__)\n"
    "#define cudaFree(ptr) __gpuc_cuda_free(ptr)\n"
    "/* waits for the GPU that an interrupt ends (the cell stops there) */\n"
    "#define cudaDeviceSynchronize() ((cudaError_t)__gpuc_cuda_sync())\n"
    "#define cudaStreamSynchronize(s) ((cudaError_t)__gpuc_cuda_stream_sync((void *)(s)))\n"
    "#define cudaEventSynchronize(e) ((cudaError_t)__gpuc_cuda_event_sync((void *)(e)))\n"
    "#define cudaMemcpy(dst, src, count, kind) \\\n"
    "    ((cudaError_t)__gpuc_cuda_memcpy((dst), (src), (count), (int)(kind)))\n"
    "/* device variables of kernel cells, by name (gpuc checks the name is\n"
    " * one: cudaErrorInvalidSymbol otherwise), with NVIDIA's defaults */\n"
    "#define cudaMemcpyToSymbol(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_mts5, __gpuc_mts4, __gpuc_mts3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mts3(s, b, n) __gpuc_mts5(s, b, n, 0, cudaMemcpyHostToDevice)\n"
    "#define __gpuc_mts4(s, b, n, o) __gpuc_mts5(s, b, n, o, cudaMemcpyHostToDevice)\n"
    "#define __gpuc_mts5(s, b, n, o, k) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 1, (void *)0, 0))\n"
    "#define cudaMemcpyToSymbolAsync(...) __gpuc_pick6(__VA_ARGS__, __gpuc_mtsa6, \\\n"
    "    __gpuc_mtsa5, __gpuc_mtsa4, __gpuc_mtsa3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mtsa3(s, b, n) __gpuc_mtsa6(s, b, n, 0, cudaMemcpyHostToDevice, 0)\n"
    "#define __gpuc_mtsa4(s, b, n, o) __gpuc_mtsa6(s, b, n, o, cudaMemcpyHostToDevice, 0)\n"
    "#define __gpuc_mtsa5(s, b, n, o, k) __gpuc_mtsa6(s, b, n, o, k, 0)\n"
    "#define __gpuc_mtsa6(s, b, n, o, k, st) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 1, (void *)(st), 1))\n"
    "#define cudaMemcpyFromSymbol(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_mfs5, __gpuc_mfs4, __gpuc_mfs3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mfs3(b, s, n) __gpuc_mfs5(b, s, n, 0, cudaMemcpyDeviceToHost)\n"
    "#define __gpuc_mfs4(b, s, n, o) __gpuc_mfs5(b, s, n, o, cudaMemcpyDeviceToHost)\n"
    "#define __gpuc_mfs5(b, s, n, o, k) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 0, (void *)0, 0))\n"
    "#define cudaMemcpyFromSymbolAsync(...) __gpuc_pick6(__VA_ARGS__, __gpuc_mfsa6, \\\n"
    "    __gpuc_mfsa5, __gpuc_mfsa4, __gpuc_mfsa3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mfsa3(b, s, n) __gpuc_mfsa6(b, s, n, 0, cudaMemcpyDeviceToHost, 0)\n"
    "#define __gpuc_mfsa4(b, s, n, o) __gpuc_mfsa6(b, s, n, o, cudaMemcpyDeviceToHost, 0)\n"
    "#define __gpuc_mfsa5(b, s, n, o, k) __gpuc_mfsa6(b, s, n, o, k, 0)\n"
    "#define __gpuc_mfsa6(b, s, n, o, k, st) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 0, (void *)(st), 1))\n"
    "#define cudaGetSymbolAddress(p, s) \\\n"
    "    ((void)&(s), (cudaError_t)__gpuc_symbol_address((void **)(p), #s))\n"
    "#define cudaGetSymbolSize(p, s) ((void)&(s), (cudaError_t)__gpuc_symbol_size((p), #s))\n"
    "/* the functions that take a kernel: a kernel's name is its handle in\n"
    " * host cells (cudaErrorInvalidDeviceFunction for anything else) */\n"
    "#undef cudaFuncGetAttributes\n"
    "#define cudaFuncGetAttributes(a, f) \\\n"
    "    ((cudaError_t)__gpuc_func_get_attributes((a), sizeof *(a), (const void *)(f)))\n"
    "#undef cudaFuncSetAttribute\n"
    "#define cudaFuncSetAttribute(f, attr, v) \\\n"
    "    ((cudaError_t)__gpuc_func_set_attribute((const void *)(f), (int)(attr), (v)))\n"
    "#undef cudaFuncSetCacheConfig\n"
    "#define cudaFuncSetCacheConfig(f, c) \\\n"
    "    ((cudaError_t)__gpuc_func_set_cache_config((const void *)(f), (int)(c)))\n"
    "#undef cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, s) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_blocks((n), (const void *)(f), (b), (s)))\n"
    "#undef cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, b, s, flags) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_blocks((n), (const void *)(f), (b), (s)))\n"
    "/* a template of cuda_runtime.h (C++), with its defaults */\n"
    "#define cudaOccupancyMaxPotentialBlockSize(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_ompbs5, __gpuc_ompbs4, __gpuc_ompbs3, , )(__VA_ARGS__)\n"
    "#define __gpuc_ompbs3(g, b, f) __gpuc_ompbs5(g, b, f, 0, 0)\n"
    "#define __gpuc_ompbs4(g, b, f, s) __gpuc_ompbs5(g, b, f, s, 0)\n"
    "#define __gpuc_ompbs5(g, b, f, s, l) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_block_size((g), (b), (const void *)(f), (s), (l)))\n"
    "/* grid and block: a dim3 or an integer, as in C++ */\n"
    "#undef cudaLaunchKernel\n"
    "#define cudaLaunchKernel(...) \\\n"
    "    __gpuc_pick6(__VA_ARGS__, __gpuc_lk6, __gpuc_lk5, __gpuc_lk4, , )(__VA_ARGS__)\n"
    "#define __gpuc_lk4(f, g, b, a) __gpuc_lk(f, g, b, a, 0, 0, 0)\n"
    "#define __gpuc_lk5(f, g, b, a, s) __gpuc_lk(f, g, b, a, s, 0, 0)\n"
    "#define __gpuc_lk6(f, g, b, a, s, st) __gpuc_lk(f, g, b, a, s, st, 0)\n"
    "#undef cudaLaunchCooperativeKernel\n"
    "#define cudaLaunchCooperativeKernel(...) \\\n"
    "    __gpuc_pick6(__VA_ARGS__, __gpuc_lck6, __gpuc_lck5, __gpuc_lck4, , )(__VA_ARGS__)\n"
    "#define __gpuc_lck4(f, g, b, a) __gpuc_lk(f, g, b, a, 0, 0, 1)\n"
    "#define __gpuc_lck5(f, g, b, a, s) __gpuc_lk(f, g, b, a, s, 0, 1)\n"
    "#define __gpuc_lck6(f, g, b, a, s, st) __gpuc_lk(f, g, b, a, s, st, 1)\n"
    "#define __gpuc_lk(f, g, b, a, s, st, coop) ({ \\\n"
    "    __typeof__(g) __gpuc_lk_grid = (g); __typeof__(b) __gpuc_lk_block = (b); \\\n"
    "    (cudaError_t)__gpuc_launch_kernel((const void *)(f), &__gpuc_lk_grid, \\\n"
    "        __gpuc_is_dim3(__gpuc_lk_grid), sizeof __gpuc_lk_grid, &__gpuc_lk_block, \\\n"
    "        __gpuc_is_dim3(__gpuc_lk_block), sizeof __gpuc_lk_block, (void **)(a), (s), \\\n"
    "        (void *)(st), (coop), __LINE__); })\n";


#define MAX_PARAMS 24

/* The CUDART_VERSION the header at dir declares, 0 when none. */
static int header_version(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda_runtime_api.h", dir);
    char *text = cm_file_read(path);
    const char *v = text ? strstr(text, "#define CUDART_VERSION") : NULL;
    int version = v ? atoi(v + strlen("#define CUDART_VERSION")) : 0;
    free(text);
    return version;
}

/* The include folder that belongs to the libcudart at lib (a file path):
 * beside it (toolkit: lib64/../include, targets/<arch>/lib/../include; the
 * pip wheels: nvidia/cuda_runtime/lib/../include), else $CUDA_HOME,
 * $CUDA_PATH and /usr/local/cuda, with the runtime's version. */
static int find_include(const char *lib, int version, char *dir, size_t len)
{
    char base[600] = "";
    snprintf(base, sizeof base, "%s", lib);
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    const char *home = getenv("CUDA_HOME"), *path = getenv("CUDA_PATH");
    const char *candidates[] = {slash ? base : NULL, home, path, "/usr/local/cuda"};
    const char *suffix[] = {"/../include", "/include", "/include", "/include"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        snprintf(dir, len, "%s%s", candidates[i], suffix[i]);
        if (header_version(dir) == version)
            return 0;
    }
    return -1;
}

/* Blanks comments, keeping everything else where it is. */
static void blank_comments(char *t)
{
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        }
    }
}

typedef struct api_fn {
    char name[96];
    int nparams;
    int first_default;             /* index of the first defaulted parameter; nparams if none */
    char defaults[MAX_PARAMS][96]; /* the default values, "" where none */
    int void_pp[MAX_PARAMS];       /* 1 where the parameter is `void **` */
} api_fn_t;

/* s[0, n) with spaces trimmed off both ends, into out. */
static void trimmed(const char *s, size_t n, char *out, size_t cap)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* One parameter: its default ("__dv(v)" or "= v") and whether it is void **. */
static void read_param(const char *p, size_t n, api_fn_t *f, int i)
{
    char text[300];
    trimmed(p, n, text, sizeof text);
    char *dv = strstr(text, "__dv(");
    char *eq = strchr(text, '=');
    f->defaults[i][0] = '\0';
    if (dv) {
        char *open = dv + 4, *q = open;
        int depth = 0;
        for (; *q; q++) {
            depth += (*q == '(') - (*q == ')');
            if (depth == 0)
                break;
        }
        trimmed(open + 1, (size_t)(q - open - 1), f->defaults[i], sizeof f->defaults[i]);
        *dv = '\0';
    } else if (eq) {
        trimmed(eq + 1, strlen(eq + 1), f->defaults[i], sizeof f->defaults[i]);
        *eq = '\0';
    }
    char *t = text;
    while (isspace((unsigned char)*t))
        t++;
    f->void_pp[i] = strncmp(t, "void", 4) == 0 && !isalnum((unsigned char)t[4]) &&
                    t[4] != '_' && strstr(t, "**") && !strstr(t, "const");
}

/* The function declared by decl ("extern ... name(params)"): 0 and *f, -1
 * when it is not one gpuc can describe. */
static int read_function(const char *decl, size_t n, api_fn_t *f)
{
    const char *open = memchr(decl, '(', n);
    if (!open)
        return -1;
    const char *e = open;
    while (e > decl && isspace((unsigned char)e[-1]))
        e--;
    const char *b = e;
    while (b > decl && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
        b--;
    if (e - b < 5 || strncmp(b, "cuda", 4) != 0 || (size_t)(e - b) >= sizeof f->name)
        return -1;
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%.*s", (int)(e - b), b);
    const char *end = decl + n, *start = open + 1;
    int depth = 1;
    for (const char *q = open + 1; q < end && depth > 0; q++) {
        depth += (*q == '(') - (*q == ')');
        if ((depth == 1 && *q == ',') || depth == 0) {
            char piece[300];
            trimmed(start, (size_t)(q - start), piece, sizeof piece);
            if (f->nparams == MAX_PARAMS)
                return -1;
            if (piece[0] && strcmp(piece, "void") != 0)
                read_param(start, (size_t)(q - start), f, f->nparams++);
            start = q + 1;
        }
    }
    f->first_default = f->nparams;
    while (f->first_default > 0 && f->defaults[f->first_default - 1][0])
        f->first_default--;
    return 0;
}

/* What gpuc defines itself (the macros above, add_properties). */
static const char *const gpuc_names[] = {
    "cudaMalloc", "cudaFree", "cudaDeviceSynchronize", "cudaStreamSynchronize",
    "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
    "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
    "cudaGetSymbolSize", "cudaGetDeviceProperties", NULL};

static int gpuc_owns(const char *name)
{
    for (int i = 0; gpuc_names[i]; i++)
        if (strcmp(gpuc_names[i], name) == 0)
            return 1;
    return 0;
}

/* cuda_runtime.h's C++ overloads that take another number of arguments
 * than the C function of nparams parameters, which nvcc's host code
 * calls: the form for nargs arguments (a0, a1, ...), as NVIDIA's inline
 * C++ functions define them. */
typedef struct overload {
    const char *name;
    int nparams, nargs;
    const char *form;
} overload_t;

static const overload_t overloads[] = {
    {"cudaEventCreate", 1, 2, "cudaEventCreateWithFlags((a0), (a1))"},
    {"cudaMallocHost", 2, 3, "cudaHostAlloc((a0), (a1), (a2))"},
    /* the error node and log of CUDA 11's form: NVIDIA's overload ignores them */
    {"cudaGraphInstantiate", 3, 5,
     "((void)(a2), (void)(a3), (void)(a4), __gpuc_fn_cudaGraphInstantiate((a0), (a1), 0))"},
    {"cudaGraphExecUpdate", 3, 4, "__gpuc_graph_exec_update((a0), (a1), (a2), (a3))"},
    {NULL, 0, 0, NULL}};

static const overload_t *overload_of(const api_fn_t *f)
{
    for (int i = 0; overloads[i].name; i++)
        if (strcmp(overloads[i].name, f->name) == 0 && overloads[i].nparams == f->nparams)
            return &overloads[i];
    return NULL;
}

/* The macros for f: NAME(...) picks __gpuc_NAME_<k> by the argument count
 * k; each form casts void ** arguments and fills the defaults in, or is a
 * C++ overload's. The forms call the function through a pointer taken
 * before NAME becomes a macro: where NVIDIA's header renames NAME
 * (`#define cudaX cudaX_v2`), that is the function the header means. */
static void add_macros(cm_buf_t *out, const api_fn_t *f)
{
    int any_pp = 0;
    for (int i = 0; i < f->nparams; i++)
        any_pp |= f->void_pp[i];
    const overload_t *ov = overload_of(f);
    if (f->first_default == f->nparams && !any_pp && !ov)
        return;
    cm_buf_addf(out, "static __typeof__(%s) *const __gpuc_fn_%s = %s;\n#undef %s\n", f->name,
                f->name, f->name, f->name);
    if (ov) {
        cm_buf_addf(out, "#define __gpuc_%s_%d(", f->name, ov->nargs);
        for (int i = 0; i < ov->nargs; i++)
            cm_buf_addf(out, "%sa%d", i ? ", " : "", i);
        cm_buf_addf(out, ") %s\n", ov->form);
    }
    if (ov && strcmp(f->name, "cudaGraphExecUpdate") == 0)
        cm_buf_adds(out, "static inline cudaError_t __gpuc_graph_exec_update(cudaGraphExec_t e, "
                         "cudaGraph_t g, cudaGraphNode_t *node, enum cudaGraphExecUpdateResult *r)\n"
                         "{ cudaGraphExecUpdateResultInfo info; "
                         "cudaError_t st = __gpuc_fn_cudaGraphExecUpdate(e, g, &info);\n"
                         "  if (node) *node = info.errorNode; if (r) *r = info.result; "
                         "return st; }\n");
    for (int k = f->first_default; k <= f->nparams; k++) {
        cm_buf_addf(out, "#define __gpuc_%s_%d(", f->name, k);
        for (int i = 0; i < k; i++)
            cm_buf_addf(out, "%sa%d", i ? ", " : "", i);
        cm_buf_addf(out, ") __gpuc_fn_%s(", f->name);
        for (int i = 0; i < f->nparams; i++) {
            const char *sep = i ? ", " : "";
            if (i >= k)
                cm_buf_addf(out, "%s%s", sep, f->defaults[i]);
            else if (f->void_pp[i])
                cm_buf_addf(out, "%s(void **)(a%d)", sep, i);
            else
                cm_buf_addf(out, "%s(a%d)", sep, i);
        }
        cm_buf_adds(out, ")\n");
    }
    if (f->first_default == f->nparams && !ov) { /* no defaults: one form */
        cm_buf_addf(out, "#define %s(...) __gpuc_%s_%d(__VA_ARGS__)\n", f->name, f->name,
                    f->nparams);
        return;
    }
    /* __gpuc_pick(args..., forms from MAX_PARAMS down to 1, _) names the
     * form for the count given; a count with no form calls the function
     * as written, so that TCC says what is wrong */
    cm_buf_addf(out, "#define %s(...) __gpuc_pick(__VA_ARGS__", f->name);
    for (int k = MAX_PARAMS; k >= 1; k--) {
        if ((k >= f->first_default && k <= f->nparams) || (ov && k == ov->nargs))
            cm_buf_addf(out, ", __gpuc_%s_%d", f->name, k);
        else
            cm_buf_addf(out, ", __gpuc_fn_%s", f->name);
    }
    cm_buf_adds(out, ", _)(__VA_ARGS__)\n");
}

/* The _ptsz/_ptds forms (CUDA 12's header declares them only where
 * CUDA_API_PER_THREAD_DEFAULT_STREAM is defined, inside an #if this text
 * scan does not follow): no macros, or a cell would refer to them. */
static int per_thread_form(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && (!strcmp(name + n - 5, "_ptsz") || !strcmp(name + n - 5, "_ptds"));
}

/* The default-argument and void ** macros of every function the API
 * text declares. A function declared twice (C++ and C forms) keeps the
 * form with the most defaults; one declared with different parameter
 * counts gets none. */
static void add_api_macros(cm_buf_t *out, char *api)
{
    blank_comments(api);
    api_fn_t *fns = NULL;
    int n = 0, cap = 0;
    for (char *p = api; (p = strstr(p, "extern")) != NULL;) {
        char *semi = strchr(p, ';');
        if (!semi)
            break;
        api_fn_t f;
        if (read_function(p, (size_t)(semi - p), &f) == 0 && !gpuc_owns(f.name) &&
            !per_thread_form(f.name)) {
            int j = 0;
            while (j < n && strcmp(fns[j].name, f.name) != 0)
                j++;
            if (j == n) {
                if (n == cap) {
                    cap = cap ? cap * 2 : 256;
                    fns = realloc(fns, (size_t)cap * sizeof *fns);
                    if (!fns)
                        abort();
                }
                fns[n++] = f;
            } else if (fns[j].nparams != f.nparams) {
                fns[j].nparams = -1; /* overloaded: leave it as declared */
            } else if (f.first_default < fns[j].first_default) {
                fns[j] = f;
            }
        }
        p = semi + 1;
    }
    cm_buf_adds(out, "#define __gpuc_pick(");
    for (int k = 1; k <= MAX_PARAMS; k++)
        cm_buf_addf(out, "_%d, ", k);
    cm_buf_adds(out, "name, ...) name\n");
    for (int i = 0; i < n; i++)
        if (fns[i].nparams >= 0)
            add_macros(out, &fns[i]);
    free(fns);
}

/* `typedef struct T T;` for every struct, union and enum the runtime's
 * headers at dir define (NVIDIA's C header has typedefs for few of them),
 * so that C cells name them as C++ code does: `cudaDeviceProp prop;`. */
static void add_type_names(cm_buf_t *out, const char *dir)
{
    static const char *const files[] = {"driver_types.h", "surface_types.h", "texture_types.h",
                                        "device_types.h", "cuda_runtime_api.h", NULL};
    cm_buf_t seen = {0};
    for (int i = 0; files[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *text = cm_file_read(path);
        for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            const char *kind = !strncmp(p, "struct ", 7) ? "struct"
                               : !strncmp(p, "union ", 6) ? "union"
                               : !strncmp(p, "enum ", 5)  ? "enum"
                                                          : NULL;
            if (!kind)
                continue;
            char *q = p + strlen(kind) + 1;
            if (!strncmp(q, "__device_builtin__ ", 19))
                q += 19;
            size_t n = 0;
            while (isalnum((unsigned char)q[n]) || q[n] == '_')
                n++;
            char name[128];
            if (!n || n >= sizeof name - 2 || strncmp(q, "cuda", 4) != 0)
                continue;
            snprintf(name, sizeof name, " %.*s ", (int)n, q);
            if (strstr(cm_buf_str(&seen), name))
                continue;
            cm_buf_adds(&seen, name);
            cm_buf_addf(out, "typedef %s %.*s %.*s;\n", kind, (int)n, q, (int)n, q);
        }
        free(text);
    }
    cm_buf_free(&seen);
}

#define PROP_NAME(type, name, dims) #name,

/* cudaGetDeviceProperties: libcudart's on a GPU; on the simulator the
 * fields of gpu_device_props_t that this version's cudaDeviceProp has
 * (read from driver_types.h at dir). */
static void add_properties(cm_buf_t *out, const char *dir)
{
    static const char *const names[] = {GPU_DEVICE_PROPS(PROP_NAME) NULL};
    char path[1024];
    snprintf(path, sizeof path, "%s/driver_types.h", dir);
    char *text = cm_file_read(path);
    char *start = text ? strstr(text, "cudaDeviceProp\n{") : NULL;
    if (!start && text)
        start = strstr(text, "cudaDeviceProp {");
    char *end = start ? strstr(start, "\n}") : NULL;
    if (end)
        *end = '\0';
    if (start)
        blank_comments(start);
    cm_buf_adds(out, "static inline cudaError_t __gpuc_device_properties(struct cudaDeviceProp *p, "
                     "int d)\n{\n"
                     "    if (!__gpuc_simulating()) return (cudaGetDeviceProperties)(p, d);\n"
                     "    struct gpu_device_props g;\n"
                     "    int rc = __gpuc_device_props(&g, d);\n"
                     "    memset(p, 0, sizeof *p);\n");
    for (int i = 0; start && names[i]; i++) {
        size_t len = strlen(names[i]);
        for (const char *q = strstr(start, names[i]); q; q = strstr(q + 1, names[i])) {
            char before = q[-1], after = q[len];
            if ((isspace((unsigned char)before) || before == '*') && (after == ';' ||
                after == '[' || isspace((unsigned char)after))) {
                cm_buf_addf(out, "    memcpy(&p->%s, &g.%s, sizeof g.%s);\n", names[i],
                            names[i], names[i]);
                break;
            }
        }
    }
    cm_buf_adds(out, "    return (cudaError_t)rc;\n}\n"
                     "#undef cudaGetDeviceProperties\n"
                     "#define cudaGetDeviceProperties(prop, device) "
                     "__gpuc_device_properties((prop), (device))\n");
    free(text);
}
static char include_dir[700]; /* the folder of the header used, "" for the subset */

/* The part of the header that comes from the toolkit: the defines TCC
 * needs, #include of the cuda_runtime_api.h that matches the loaded
 * libcudart (same CUDART_VERSION), and the macros C needs (default
 * arguments, void ** casts, cudaGetDeviceProperties on the simulator).
 * Returns it (caller frees) with source saying where it came from, or NULL
 * with source saying why gpuc's subset is used. */
static char *toolkit_part(char *source, size_t source_len)
{
    char lib[512];
    int version = gpu_runtime_library(lib, sizeof lib);
    const char *forced = getenv("GPUC_CUDA_INCLUDE");
    if (forced && strcmp(forced, "none") == 0) {
        snprintf(source, source_len, "gpuc's own declarations (GPUC_CUDA_INCLUDE=none)");
        return NULL;
    }
    if (!version) {
        snprintf(source, source_len, "gpuc's own declarations (no CUDA runtime found)");
        return NULL;
    }
    char dir[700];
    if (forced && forced[0]) {
        snprintf(dir, sizeof dir, "%s", forced);
        if (header_version(dir) != version)
            forced = NULL;
    }
    if (!(forced && forced[0]) && find_include(lib, version, dir, sizeof dir) != 0) {
        snprintf(source, source_len,
                 "gpuc's own declarations (no cuda_runtime_api.h of CUDA %d.%d beside %s)",
                 version / 1000, version % 1000 / 10, lib);
        return NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/cuda_runtime_api.h", dir);
    char *api = cm_file_read(path);
    if (!api)
        return NULL;
    cm_buf_t out = {0};
    /* what NVIDIA's compiler check leaves undefined for TCC; the vector
     * types are gpuc's (types above), aligned as nvcc aligns them, which
     * TCC does not do for an aligned attribute on a struct */
    cm_buf_adds(&out, "#ifndef __GNUC__\n" /* %%cc cells' gcc has NVIDIA's own */
                      "#define __location__(a)\n"
                      "#define __align__(n) __attribute__((aligned(n)))\n"
                      "#define CUDARTAPI\n#define CUDARTAPI_CDECL\n"
                      "#endif\n"
                      "#define __NV_NO_VECTOR_DEPRECATION_DIAG 1\n"
                      "#define __VECTOR_TYPES_H__\n"
                      /* make_float4 & co, __half and __nv_bfloat16 are gpuc's
                       * too: cuda_runtime.h (curand.h) and cublas_api.h
                       * include NVIDIA's, which are C++ or need nvcc */
                      "#define __VECTOR_FUNCTIONS_H__\n#define __CUDA_FP16_H__\n"
                      "#define __CUDA_BF16_H__\n");
    cm_buf_addf(&out, "#include \"%s\"\n#include <string.h>\n", path);
    for (int i = 0; gpuc_names[i]; i++) /* gpuc's macros (above) replace them */
        if (strcmp(gpuc_names[i], "cudaGetDeviceProperties") != 0)
            cm_buf_addf(&out, "#undef %s\n", gpuc_names[i]);
    add_type_names(&out, dir);
    add_api_macros(&out, api);
    add_properties(&out, dir);
    free(api);
    snprintf(include_dir, sizeof include_dir, "%s", dir);
    snprintf(source, source_len, "CUDA %d.%d's cuda_runtime_api.h (%s)", version / 1000,
             version % 1000 / 10, dir);
    return cm_buf_steal(&out);
}

static char source[900]; /* where the declarations came from */

const char *rt_cuda_header_source(void)
{
    rt_cuda_header(1);
    return source;
}

const char *rt_cuda_include_dir(void)
{
    rt_cuda_header(1);
    return include_dir[0] ? include_dir : NULL;
}

const char *rt_cuda_header(int toolkit)
{
    static char *text[2];
    toolkit = toolkit != 0;
    if (text[toolkit])
        return text[toolkit];
    char *nvidia = toolkit ? toolkit_part(source, sizeof source) : NULL;
    cm_buf_t b = {0};
    cm_buf_adds(&b, "/* gpuc: the CUDA runtime API for host cells (libcudart, loaded at run time) */\n"
                    "#ifndef GPUC_CUDA_RUNTIME_H\n#define GPUC_CUDA_RUNTIME_H\n#include <stddef.h>\n");
    cm_buf_adds(&b, types);
    cm_buf_adds(&b, nvidia ? nvidia : subset);
    cm_buf_adds(&b, macros);
    cm_buf_adds(&b, "#endif\n");
    free(nvidia);
    text[toolkit] = cm_buf_steal(&b);
    return text[toolkit];
}
