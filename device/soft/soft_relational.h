/*
 * soft_relational.h — the soft device's sort, gather and hash join ops
 * (hados_relational.h). Each entry point executes one op of its family;
 * len is the op's length after HADOS_OPF_LEN_FROM_PREV.
 */
#ifndef SOFT_RELATIONAL_H
#define SOFT_RELATIONAL_H

#include <stdint.h>

#include "hados_relational.h"
#include "soft.h"

/* HADOS_OP_SORT and HADOS_OP_MERGE (soft_sort.c). */
int soft_sort_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result);
/* HADOS_OP_GATHER (soft_gather.c). */
int soft_gather_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result);
/* HADOS_OP_JOIN_BUILD, HADOS_OP_JOIN_PROBE and HADOS_OP_JOIN_FREE (soft_join.c). */
int soft_join_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result);

#endif
