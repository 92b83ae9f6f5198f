/*
 * soft_heap.c — the software DPU's device memory allocator.
 *
 * An address-ordered free list of extents with coalescing (first fit) plus
 * an open-addressing table from allocated offset to length, so that free()
 * of an unknown or already freed address is detected and reported instead
 * of corrupting the heap. Every size is rounded up to SOFT_ALIGN (64 bytes)
 * and every offset is a multiple of it. The Go memory pool sub-allocates
 * small blocks from large slabs, so this allocator sees few, large requests
 * and a linear free list is adequate.
 */
#include <stdlib.h>
#include <string.h>

#include "soft.h"

static uint64_t hash_off(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}

static int table_grow(soft_heap *h) {
  uint64_t ncap = h->cap ? h->cap * 2 : 1024;
  uint64_t *nk = calloc(ncap, sizeof(uint64_t));
  uint64_t *nv = calloc(ncap, sizeof(uint64_t));
  if (!nk || !nv) {
    free(nk);
    free(nv);
    return HADOS_E_NOMEM;
  }
  for (uint64_t i = 0; i < h->cap; i++) {
    if (!h->keys[i]) continue;
    uint64_t j = hash_off(h->keys[i]) & (ncap - 1);
    while (nk[j]) j = (j + 1) & (ncap - 1);
    nk[j] = h->keys[i];
    nv[j] = h->vals[i];
  }
  free(h->keys);
  free(h->vals);
  h->keys = nk;
  h->vals = nv;
  h->cap = ncap;
  return HADOS_OK;
}

/* Returns the slot of key (offset+1) or the empty slot where it would go. */
static uint64_t table_slot(const soft_heap *h, uint64_t key) {
  uint64_t j = hash_off(key) & (h->cap - 1);
  while (h->keys[j] && h->keys[j] != key) j = (j + 1) & (h->cap - 1);
  return j;
}

/* Deletes slot j with backward-shift so probe chains stay intact. */
static void table_delete(soft_heap *h, uint64_t j) {
  uint64_t mask = h->cap - 1;
  uint64_t i = j;
  for (;;) {
    h->keys[i] = 0;
    uint64_t k = (i + 1) & mask;
    for (;;) {
      if (!h->keys[k]) return;
      uint64_t home = hash_off(h->keys[k]) & mask;
      /* can the entry at k move to i? yes if home is not in (i, k] cyclically */
      int between = (i <= k) ? (home > i && home <= k) : (home > i || home <= k);
      if (!between) break;
      k = (k + 1) & mask;
    }
    h->keys[i] = h->keys[k];
    h->vals[i] = h->vals[k];
    i = k;
  }
}

int soft_heap_init(soft_heap *h, uint64_t size) {
  memset(h, 0, sizeof(*h));
  pthread_mutex_init(&h->mu, NULL);
  soft_extent *e = malloc(sizeof(*e));
  if (!e) return soft_fail(HADOS_E_NOMEM, "soft: out of host memory for the heap");
  e->off = 0;
  e->len = size & ~(uint64_t)(SOFT_ALIGN - 1);
  e->next = NULL;
  h->free_list = e;
  if (table_grow(h) != HADOS_OK) {
    free(e);
    h->free_list = NULL;
    return soft_fail(HADOS_E_NOMEM, "soft: out of host memory for the heap");
  }
  return HADOS_OK;
}

void soft_heap_destroy(soft_heap *h) {
  soft_extent *e = h->free_list;
  while (e) {
    soft_extent *n = e->next;
    free(e);
    e = n;
  }
  free(h->keys);
  free(h->vals);
  pthread_mutex_destroy(&h->mu);
  memset(h, 0, sizeof(*h));
}

/* First fit from the bottom, or (high) the highest extent that fits, cut
   from its top end. */
static int heap_alloc(soft_heap *h, uint64_t size, uint64_t *off, int high);

int soft_heap_alloc(soft_heap *h, uint64_t size, uint64_t *off) { return heap_alloc(h, size, off, 0); }

int soft_heap_alloc_high(soft_heap *h, uint64_t size, uint64_t *off) { return heap_alloc(h, size, off, 1); }

static int heap_alloc(soft_heap *h, uint64_t size, uint64_t *off, int high) {
  if (size == 0) return soft_fail(HADOS_E_INVALID, "soft: allocation of 0 bytes");
  if (size > UINT64_MAX - SOFT_ALIGN) return soft_fail(HADOS_E_NOMEM, "soft: allocation of %llu bytes is too large", (unsigned long long)size);
  uint64_t len = (size + SOFT_ALIGN - 1) & ~(uint64_t)(SOFT_ALIGN - 1);
  pthread_mutex_lock(&h->mu);
  if ((h->count + 1) * 2 > h->cap && table_grow(h) != HADOS_OK) {
    pthread_mutex_unlock(&h->mu);
    return soft_fail(HADOS_E_NOMEM, "soft: out of host memory for allocation table");
  }
  soft_extent **pp = &h->free_list;
  if (high) { /* the last (highest) extent that fits */
    soft_extent **best = NULL;
    for (; *pp; pp = &(*pp)->next)
      if ((*pp)->len >= len) best = pp;
    if (best) pp = best;
  } else {
    while (*pp && (*pp)->len < len) pp = &(*pp)->next;
  }
  if (!*pp) {
    uint64_t used = h->used;
    pthread_mutex_unlock(&h->mu);
    return soft_fail(HADOS_E_NOMEM, "soft: device memory exhausted: %llu bytes requested, %llu in use, no free extent large enough",
                     (unsigned long long)len, (unsigned long long)used);
  }
  soft_extent *e = *pp;
  *off = high ? e->off + e->len - len : e->off;
  if (e->len == len) {
    *pp = e->next;
    free(e);
  } else {
    if (!high) e->off += len;
    e->len -= len;
  }
  uint64_t j = table_slot(h, *off + 1);
  h->keys[j] = *off + 1;
  h->vals[j] = len;
  h->count++;
  h->used += len;
  if (h->used > h->peak) h->peak = h->used;
  pthread_mutex_unlock(&h->mu);
  return HADOS_OK;
}

int soft_heap_lookup(soft_heap *h, uint64_t off, uint64_t *len) {
  pthread_mutex_lock(&h->mu);
  uint64_t j = table_slot(h, off + 1);
  int found = h->keys[j] != 0;
  if (found) *len = h->vals[j];
  pthread_mutex_unlock(&h->mu);
  return found ? HADOS_OK : HADOS_E_FAULT;
}

int soft_heap_free(soft_heap *h, uint64_t off, uint64_t *out_len) {
  pthread_mutex_lock(&h->mu);
  uint64_t j = table_slot(h, off + 1);
  if (!h->keys[j]) {
    pthread_mutex_unlock(&h->mu);
    return HADOS_E_INVALID;
  }
  uint64_t len = h->vals[j];
  table_delete(h, j);
  h->count--;
  h->used -= len;
  if (out_len) *out_len = len;

  /* insert [off, off+len) into the sorted free list and coalesce */
  soft_extent *prev = NULL, *cur = h->free_list;
  while (cur && cur->off < off) {
    prev = cur;
    cur = cur->next;
  }
  int merged = 0;
  if (prev && prev->off + prev->len == off) {
    prev->len += len;
    merged = 1;
    if (cur && prev->off + prev->len == cur->off) {
      prev->len += cur->len;
      prev->next = cur->next;
      free(cur);
    }
  } else if (cur && off + len == cur->off) {
    cur->off = off;
    cur->len += len;
    merged = 1;
  }
  if (!merged) {
    soft_extent *e = malloc(sizeof(*e));
    if (!e) {
      /* the bytes are lost to the free list but the accounting stays right */
      pthread_mutex_unlock(&h->mu);
      return HADOS_OK;
    }
    e->off = off;
    e->len = len;
    e->next = cur;
    if (prev)
      prev->next = e;
    else
      h->free_list = e;
  }
  pthread_mutex_unlock(&h->mu);
  return HADOS_OK;
}

static int block_alloc(soft_device *d, soft_block *b, uint64_t bytes, int high) {
  uint64_t off, len = soft_round_align(bytes ? bytes : 1);
  int st = heap_alloc(&d->heap, len, &off, high);
  if (st != HADOS_OK) return st;
  atomic_fetch_add(&d->allocs, 1);
  b->p = d->mem + off;
  b->bytes = len;
  return HADOS_OK;
}

int soft_block_alloc(soft_device *d, soft_block *b, uint64_t bytes) { return block_alloc(d, b, bytes, 0); }

int soft_block_alloc_high(soft_device *d, soft_block *b, uint64_t bytes) { return block_alloc(d, b, bytes, 1); }

void soft_block_free(soft_device *d, soft_block *b) {
  if (!b->p) return;
  soft_heap_free(&d->heap, (uint64_t)(b->p - d->mem), NULL);
  atomic_fetch_add(&d->frees, 1);
  b->p = NULL;
  b->bytes = 0;
}
