/* tsan-glib.c — preloaded into the ThreadSanitizer run of the engine tests only (build-tsan,
 * ./run-tests --sanitize). GLib's GMutex and GCond are futex-based inside libglib, which is not
 * instrumented, so TSan cannot see that they order memory and reports every access they guard
 * as a race. These wrappers call the real functions and tell TSan what they do (acquire after
 * lock, release before unlock and around a condition wait), so only real races remain.
 * No race is suppressed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>

/* Weak: the library is preloaded (LD_PRELOAD) and child processes the tests start are not
 * built with TSan. */
void __tsan_acquire (void *addr) __attribute__ ((weak));
void __tsan_release (void *addr) __attribute__ ((weak));

static inline void
acquire (void *addr)
{
  if (__tsan_acquire != NULL)
    __tsan_acquire (addr);
}

static inline void
release (void *addr)
{
  if (__tsan_release != NULL)
    __tsan_release (addr);
}

#define REAL(name)                                                         \
  static __typeof__ (&name) real_##name;                                   \
  if (real_##name == NULL)                                                 \
    real_##name = (__typeof__ (&name)) dlsym (RTLD_NEXT, #name)

void
g_mutex_lock (GMutex *mutex)
{
  REAL (g_mutex_lock);
  real_g_mutex_lock (mutex);
  acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  REAL (g_mutex_trylock);
  if (!real_g_mutex_trylock (mutex))
    return FALSE;
  acquire (mutex);
  return TRUE;
}

void
g_mutex_unlock (GMutex *mutex)
{
  REAL (g_mutex_unlock);
  release (mutex);
  real_g_mutex_unlock (mutex);
}

void
g_cond_wait (GCond  *cond,
             GMutex *mutex)
{
  REAL (g_cond_wait);
  release (mutex);
  real_g_cond_wait (cond, mutex);
  acquire (mutex);
}

gboolean
g_cond_wait_until (GCond  *cond,
                   GMutex *mutex,
                   gint64  end_time)
{
  gboolean ok;
  REAL (g_cond_wait_until);
  release (mutex);
  ok = real_g_cond_wait_until (cond, mutex, end_time);
  acquire (mutex);
  return ok;
}
