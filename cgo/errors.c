/* errors.c — the thread-local last error of the C ABI. */
#include <string.h>

static __thread char hados_err[1024];

const char *hados_last_error(void) { return hados_err; }

/* Called from Go during an exported call, on the caller's thread. */
void hd_set_error(const char *msg) {
  if (!msg) msg = "";
  strncpy(hados_err, msg, sizeof(hados_err) - 1);
  hados_err[sizeof(hados_err) - 1] = 0;
}
