/* LB_TSAN is defined in a ThreadSanitizer build (gcc or clang), for the
 * checks such a build cannot make. */
#ifndef LB_TEST_TSAN_H
#define LB_TEST_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define LB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LB_TSAN 1
#endif
#endif

#endif
