/*
 * soft_sort_internal.h — internals of the soft device's SORT and MERGE
 * (soft_sort.c: the ops, the row comparator, merging and top-k selection;
 * soft_sort_radix.c: normalised keys and the radix sort).
 */
#ifndef SOFT_SORT_INTERNAL_H
#define SOFT_SORT_INTERNAL_H

#include <stdint.h>

#include "soft_sort_desc.h"

/* Bytes of a string key's normalised prefix. */
#define SORT_STR_PREFIX 8u
/* Widest normalised key the radix sort takes; wider keys sort by comparison. */
#define SORT_MAX_RADIX_KEY 40u

/* The keys of one SORT / MERGE. */
typedef struct sort_keys {
  rel_desc d;
  uint32_t kw;        /* normalised key bytes (keys [0, n_norm)) */
  uint32_t n_norm;    /* keys in the normalised key: up to and including the first string key */
  int tiebreak;       /* equal normalised keys still need the comparator (a string key is in) */
} sort_keys;

/* Full comparison of rows a and b by every key (Spark's SortOrder); 0 when
   equal on every key. */
int sort_cmp_rows(const sort_keys *k, int32_t a, int32_t b);

/* Normalised key layout of k (sets kw, n_norm, tiebreak). */
void sort_norm_layout(sort_keys *k);
/* Writes the normalised keys of rows [first, first + n) at the start of
   records of rs bytes. */
void sort_norm_rows(const sort_keys *k, uint64_t first, uint64_t n, uint8_t *recs, uint32_t rs);
/* Sorts rows [first, first + n) by the normalised keys, stably (MSD
   splitting of large ranges, LSD in cache): recs must hold n * (kw + 4)
   bytes and tmp as many (scratch); returns recs, holding the sorted
   records, each kw key bytes then the int32 row. */
uint8_t *sort_radix(const sort_keys *k, uint64_t first, uint64_t n, uint8_t *recs, uint8_t *tmp);
/* Sorts n records of recs already normalised (kw key bytes then the int32
   row each), stably, in place; tmp holds as many bytes (scratch). */
void sort_radix_recs(uint8_t *recs, uint8_t *tmp, uint64_t n, uint32_t kw);

#endif
