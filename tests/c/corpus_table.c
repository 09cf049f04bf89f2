/* Compiles the umbrella corpus header as a C consumer would, and hands its
   table to the Rust tests so they can compare it with the parsed parts. */
#include "aether_c_corpus.h"

unsigned aether_test_corpus_count(void)
{
    return (unsigned)(sizeof aether_corpus_functions / sizeof aether_corpus_functions[0]);
}

const aether_corpus_function *aether_test_corpus_table(void)
{
    return aether_corpus_functions;
}
