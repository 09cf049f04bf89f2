#include "aether_core.h"
#include "aether_c_corpus.h"
unsigned aether_test_corpus_count(void);
const aether_corpus_function *aether_test_corpus_table(void);
#include "aether_flat.h"
#include "aether_predicate_flat.h"
