// SPDX-License-Identifier: MIT
// Lock discipline the compiler checks: clang's thread-safety attributes
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), which clang checks with
// -Wthread-safety (cmake -DHIPFILE_THREAD_SAFETY=ON, scripts/thread-safety.sh). Other compilers
// see nothing: every macro expands to nothing there.
//
// libstdc++'s std::mutex carries no attributes, so annotated code locks Mutex and SharedMutex
// (util/mutex.h) instead. In short:
//
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_) = 0;       // read or written only with mu_ held
//   void BumpLocked() REQUIRES(mu_);      // callers hold mu_
//   void Bump() EXCLUDES(mu_) {           // takes mu_ itself: callers must not hold it
//     MutexLock lock(mu_);
//     BumpLocked();
//   }
//
// Constructors and destructors are not checked (no other thread can see the object yet, or any
// more). Where the analysis cannot follow a correct protocol, say why next to
// NO_THREAD_SAFETY_ANALYSIS.
#pragma once

#if defined(__clang__)
#define HF_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define HF_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are capabilities (locks) named `x` in messages ("mutex").
#define CAPABILITY(x) HF_THREAD_ANNOTATION(capability(x))
// On a class: an RAII object that holds a capability from construction to destruction.
#define SCOPED_CAPABILITY HF_THREAD_ANNOTATION(scoped_lockable)

// On a member: read only with the capability held (shared at least), written only with it held
// exclusively.
#define GUARDED_BY(x) HF_THREAD_ANNOTATION(guarded_by(x))
// On a pointer member: the same for what it points to (the pointer itself is not guarded).
#define PT_GUARDED_BY(x) HF_THREAD_ANNOTATION(pt_guarded_by(x))

// On a capability member: the order in which locks are taken (checked with -Wthread-safety-beta
// only).
#define ACQUIRED_BEFORE(...) HF_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) HF_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// On a function: the caller holds these capabilities, exclusively or at least shared, on entry,
// and still holds them on return.
#define REQUIRES(...) HF_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) HF_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// On a function: it takes these capabilities and returns holding them (no argument: the object's
// own, for a method of a capability or scoped class).
#define ACQUIRE(...) HF_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) HF_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
// On a function: the caller holds these capabilities on entry, and they are released on return.
#define RELEASE(...) HF_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) HF_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) HF_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
// On a function: it tries to take the capabilities; its return value equals the first argument
// when it did.
#define TRY_ACQUIRE(...) HF_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) HF_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))

// On a function: the caller must not hold these capabilities (the function takes them). Checked
// where the caller is known to hold one.
#define EXCLUDES(...) HF_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// On a function: the capability is held when it returns; the analysis assumes so from there.
#define ASSERT_CAPABILITY(x) HF_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) HF_THREAD_ANNOTATION(assert_shared_capability(x))

// On a function: it returns (a reference to) the capability `x`.
#define RETURN_CAPABILITY(x) HF_THREAD_ANNOTATION(lock_returned(x))

// On a function: the analysis skips its body. Say why next to it.
#define NO_THREAD_SAFETY_ANALYSIS HF_THREAD_ANNOTATION(no_thread_safety_analysis)
