/* Every one-input f32 function of the CUDA core on every one of the 2^32 bit patterns, on the
   device, against the C core on the host, under the spec's comparison policy (bits equal, any NaN
   for any NaN, +0 for -0 where the function is granted it).

   The functions are found from the flat convention's table (aether_flat.h): every entry with
   fixed inputs of one 32-bit word (sign, neg, abs and the f32 elementary functions). The device
   side runs them through aether_cuda_flat_call, the dispatcher of the CUDA corpus runner; the
   host side through the C core's thunks (tests/c/exhaustive_c_flat.c, table
   aether_c_flat_entries), on every host core (OpenMP). The C core is itself checked against the
   Rust reference over the same 2^32 patterns by the exhaustive sweep (scripts/sweep.sh), so the
   two together carry the reference's bits to the device.

   The 2^32 inputs run in 256 blocks of 2^24; while the host compares one block the device
   computes the next.

     cuda_exhaustive [--host] [--only NAME] [--blocks K] [--control-expected]

   --host              the CUDA core's host thunks stand in for the device (no GPU needed): the
                       same program, checking the CUDA core's host path
   --only NAME         that function alone (its C name, e.g. aether_f32_sin)
   --blocks K          K of the 256 blocks, evenly spaced (default all 256)
   --control-expected  exit 0 only when some input mismatches (for the core built with plain
                       operators, -DAETHER_UNSAFE_ALLOW_CONTRACTION, which nvcc contracts)

   Prints a line per function and its first mismatches (the lowest x), then a total; exits 0 when
   nothing mismatches (or, under --control-expected, when something does), 1 otherwise, 2 on a
   usage or CUDA error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aether_core.cuh"
#include "aether_cuda_flat.cuh"

extern "C" const aether_flat_entry aether_c_flat_entries[AETHER_FLAT_COUNT];

#define EX_LOG2_BLOCK 24u
#define EX_BLOCK (1u << EX_LOG2_BLOCK)
#define EX_BLOCKS (1u << (32u - EX_LOG2_BLOCK))
#define EX_CAP 4u
#define EX_KEEP 5

#define EX_CUDA(call) ex_cuda((call), #call)

static void ex_cuda(cudaError_t err, const char *call)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "cuda_exhaustive: %s failed: %s\n", call, cudaGetErrorString(err));
        exit(2);
    }
}

/* Input k of the block is the pattern base + k; its n_out words go to out[k * n_out ...] (the low
   32 bits of each). A thunk that does not return n_out words counts in *bad. */
static __global__ void ex_kernel(unsigned index, uint32_t base, unsigned n_out, uint32_t *out, unsigned long long *bad)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t in, words[EX_CAP];
    unsigned j;
    if (k >= EX_BLOCK) return;
    in = (uint64_t)(base + k);
    if (aether_cuda_flat_call(index, &in, 1u, words, EX_CAP) != n_out) atomicAdd(bad, 1ull);
    for (j = 0; j < n_out; ++j) out[(size_t)k * n_out + j] = (uint32_t)words[j];
}

/* The same block through the CUDA core's host thunks (--host). */
static void ex_host_block(const aether_flat_entry *e, uint32_t base, unsigned n_out, uint32_t *out, unsigned long long *bad)
{
    long k;
    unsigned long long b = 0;
#pragma omp parallel for schedule(static) reduction(+ : b)
    for (k = 0; k < (long)EX_BLOCK; ++k) {
        uint64_t in = (uint64_t)(base + (uint32_t)k), words[EX_CAP];
        unsigned j;
        if (e->call(&in, 1u, words, EX_CAP) != n_out) b += 1;
        for (j = 0; j < n_out; ++j) out[(size_t)k * n_out + j] = (uint32_t)words[j];
    }
    *bad += b;
}

typedef struct ex_mismatch {
    uint32_t x;
    uint32_t c[EX_CAP], got[EX_CAP];
} ex_mismatch;

typedef struct ex_outcome {
    unsigned long long inputs, mismatches, bad;
    int kept;
    ex_mismatch first[EX_KEEP];
} ex_outcome;

/* Keeps m among the EX_KEEP lowest x (threads do not meet the inputs in order). */
static void ex_keep(ex_outcome *o, const ex_mismatch *m)
{
    int at;
    if (o->kept < EX_KEEP) {
        at = o->kept++;
    } else if (m->x < o->first[EX_KEEP - 1].x) {
        at = EX_KEEP - 1;
    } else {
        return;
    }
    o->first[at] = *m;
    while (at > 0 && o->first[at - 1].x > o->first[at].x) {
        ex_mismatch t = o->first[at - 1];
        o->first[at - 1] = o->first[at];
        o->first[at] = t;
        --at;
    }
}

/* Compares a block's words with the C core's thunk, on every host core. */
static void ex_compare(const aether_flat_entry *c, uint32_t base, unsigned n_out, const uint32_t *got, ex_outcome *o)
{
    long k;
    unsigned long long mismatches = 0, bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : mismatches, bad)
    for (k = 0; k < (long)EX_BLOCK; ++k) {
        uint64_t in = (uint64_t)(base + (uint32_t)k), words[EX_CAP];
        const uint32_t *g = got + (size_t)k * n_out;
        unsigned j;
        int ok = 1;
        if (c->call(&in, 1u, words, EX_CAP) != n_out) {
            bad += 1;
            continue;
        }
        /* The spec's comparison policy, as the core's self-test prints it. */
        for (j = 0; j < n_out; ++j) ok &= aether_selftest_word_ok((uint32_t)words[j], g[j], 32u, c->is_float, c->either_zero);
        if (!ok) {
            mismatches += 1;
#pragma omp critical(ex_keep)
            {
                ex_mismatch m;
                memset(&m, 0, sizeof m);
                m.x = (uint32_t)in;
                for (j = 0; j < n_out; ++j) {
                    m.c[j] = (uint32_t)words[j];
                    m.got[j] = g[j];
                }
                ex_keep(o, &m);
            }
        }
    }
    o->inputs += EX_BLOCK;
    o->mismatches += mismatches;
    o->bad += bad;
}

static double ex_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void ex_print_words(const char *what, const uint32_t *w, unsigned n)
{
    unsigned j;
    printf(" %s", what);
    for (j = 0; j < n; ++j) printf(" %08x", w[j]);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int host = 0, control = 0, i;
    unsigned blocks = EX_BLOCKS, functions = 0, index;
    unsigned long long total_inputs = 0, total_mismatches = 0, total_bad = 0;
    uint32_t *h_out[2] = {NULL, NULL}, *d_out[2] = {NULL, NULL};
    unsigned long long *d_bad = NULL, h_bad[2] = {0, 0};
    cudaStream_t stream = 0;
    cudaEvent_t copied[2];
    const double started = ex_now();
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--host") == 0) {
            host = 1;
        } else if (strcmp(argv[i], "--control-expected") == 0) {
            control = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) {
            char *end;
            unsigned long b = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || b == 0 || b > EX_BLOCKS) {
                fprintf(stderr, "cuda_exhaustive: --blocks takes 1 to %u\n", EX_BLOCKS);
                return 2;
            }
            blocks = (unsigned)b;
        } else {
            fprintf(stderr, "usage: %s [--host] [--only NAME] [--blocks K] [--control-expected]\n", argv[0]);
            return 2;
        }
    }
    for (i = 0; i < 2; ++i) {
        if (host) {
            h_out[i] = (uint32_t *)malloc((size_t)EX_BLOCK * EX_CAP * sizeof(uint32_t));
            if (h_out[i] == NULL) {
                fprintf(stderr, "cuda_exhaustive: out of memory\n");
                return 2;
            }
        } else {
            EX_CUDA(cudaMallocHost((void **)&h_out[i], (size_t)EX_BLOCK * EX_CAP * sizeof(uint32_t)));
            EX_CUDA(cudaMalloc((void **)&d_out[i], (size_t)EX_BLOCK * EX_CAP * sizeof(uint32_t)));
        }
    }
    if (!host) {
        EX_CUDA(cudaMalloc((void **)&d_bad, 2 * sizeof *d_bad));
        EX_CUDA(cudaStreamCreate(&stream));
        EX_CUDA(cudaEventCreateWithFlags(&copied[0], cudaEventDisableTiming));
        EX_CUDA(cudaEventCreateWithFlags(&copied[1], cudaEventDisableTiming));
    }
    printf("cuda_exhaustive: %s against the C core, %u of %u blocks of 2^%u inputs per function\n",
           host ? "the CUDA core's host thunks" : "the CUDA core on the device", blocks, EX_BLOCKS, EX_LOG2_BLOCK);
    for (index = 0; index < AETHER_FLAT_COUNT; ++index) {
        const aether_flat_entry *e = &aether_flat_entries[index], *c = &aether_c_flat_entries[index];
        ex_outcome o;
        unsigned b, n_out;
        double t0;
        if (e->layout != AETHER_FLAT_FIXED || e->bits != 32u || e->n_in != 1u) continue;
        if (only != NULL && strcmp(e->name, only) != 0) continue;
        if (strcmp(e->name, c->name) != 0 || e->n_out != c->n_out || e->n_out == 0u || e->n_out > EX_CAP) {
            fprintf(stderr, "cuda_exhaustive: entry %u: the tables disagree (%s, %u words; C %s, %u words)\n", index, e->name, e->n_out,
                    c->name, c->n_out);
            return 2;
        }
        n_out = e->n_out;
        memset(&o, 0, sizeof o);
        t0 = ex_now();
        /* Block b is pattern block (b * EX_BLOCKS / blocks); the device runs block b + 1 while the
           host compares block b. */
        for (b = 0; b <= blocks; ++b) {
            const unsigned slot = b & 1u;
            if (b < blocks) {
                const uint32_t base = (uint32_t)((b * EX_BLOCKS / blocks) << EX_LOG2_BLOCK);
                if (host) {
                    h_bad[slot] = 0;
                    ex_host_block(e, base, n_out, h_out[slot], &h_bad[slot]);
                } else {
                    EX_CUDA(cudaMemsetAsync(d_bad + slot, 0, sizeof *d_bad, stream));
                    ex_kernel<<<EX_BLOCK / 256u, 256u, 0, stream>>>(index, base, n_out, d_out[slot], d_bad + slot);
                    EX_CUDA(cudaGetLastError());
                    EX_CUDA(cudaMemcpyAsync(h_out[slot], d_out[slot], (size_t)EX_BLOCK * n_out * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                            stream));
                    EX_CUDA(cudaMemcpyAsync(&h_bad[slot], d_bad + slot, sizeof *d_bad, cudaMemcpyDeviceToHost, stream));
                    EX_CUDA(cudaEventRecord(copied[slot], stream));
                }
            }
            if (b > 0) {
                const unsigned prev = (b - 1u) & 1u;
                const uint32_t base = (uint32_t)(((b - 1u) * EX_BLOCKS / blocks) << EX_LOG2_BLOCK);
                if (!host) EX_CUDA(cudaEventSynchronize(copied[prev]));
                o.bad += h_bad[prev];
                ex_compare(c, base, n_out, h_out[prev], &o);
            }
        }
        printf("cuda_exhaustive: %s: %llu inputs, %llu mismatches, %llu bad returns (%.1f s)\n", e->name, o.inputs, o.mismatches, o.bad,
               ex_now() - t0);
        for (i = 0; i < o.kept; ++i) {
            printf("    x %08x:", o.first[i].x);
            ex_print_words("C", o.first[i].c, n_out);
            ex_print_words(host ? "host" : "device", o.first[i].got, n_out);
            printf("\n");
        }
        fflush(stdout);
        functions += 1;
        total_inputs += o.inputs;
        total_mismatches += o.mismatches;
        total_bad += o.bad;
    }
    printf("cuda_exhaustive: %u functions, %llu inputs, %llu mismatches, %llu bad returns, %.1f s\n", functions, total_inputs,
           total_mismatches, total_bad, ex_now() - started);
    if (functions == 0) {
        fprintf(stderr, "cuda_exhaustive: no function selected\n");
        return 2;
    }
    if (total_bad != 0) return 1;
    if (control) return total_mismatches != 0 ? 0 : 1;
    return total_mismatches == 0 ? 0 : 1;
}
