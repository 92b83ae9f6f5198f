/* soft_join.c — placeholder until the join ops land. */
#include "soft_relational.h"

int soft_join_op(soft_device *d, const hados_op *op, uint64_t len, uint64_t *result) {
  (void)d; (void)len; *result = 0;
  return soft_fail(HADOS_E_NOTSUP, "soft: opcode %u is not implemented yet", op->opcode);
}
