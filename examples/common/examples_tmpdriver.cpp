// SPDX-License-Identifier: MIT
/* examples_tmpdriver: runs one example for CTest in a scratch directory of its own.
 *
 *   examples_tmpdriver --base DIR [--seed-input BYTES] [--seed U32] [--check-copy SRC[@OFF] DST]
 *                      [--check-hash FILE] -- PROGRAM [ARGS...]
 *
 * Makes DIR/hipfile_ex.XXXXXX (mkdtemp), writes BYTES bytes to input.bin there when
 * --seed-input is given (the std::mt19937 stream seeded with --seed, default 97, each 32-bit
 * value stored as 4 little-endian bytes), replaces {TMPDIR} and {INPUT} in ARGS (and in the check
 * arguments) with the directory and input.bin, and runs PROGRAM in the directory. Afterwards it
 * removes the directory, also when the driver gets SIGINT, SIGTERM or SIGHUP: it passes the
 * signal on to PROGRAM, waits for it, cleans up and dies of the same signal.
 *
 * For programs that print nothing on success (aiscp, offsetcp, buffertofile), checks run once
 * PROGRAM exited 0, and print a line the test can match:
 *   --check-copy SRC[@OFF] DST  DST must equal SRC's bytes from OFF (default 0) to its end:
 *                               "OK  SRC[@OFF] -> DST  (<n> bytes, hash 0x<16 hex>)"
 *   --check-hash FILE           "OK  FILE  (<n> bytes, hash 0x<16 hex>)"
 * Exit status: PROGRAM's (128 + signal number when it was killed), 1 when a check fails, 2 on a
 * usage error, 127 when PROGRAM cannot be run. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "examples_common.h"

namespace {

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signal = 0;

const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};

void forward(int sig) {
    g_signal = sig;
    if (g_child > 0) kill((pid_t)g_child, sig);
}

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s --base DIR [--seed-input BYTES] [--seed U32] [--check-copy "
                 "SRC[@OFF] DST] [--check-hash FILE] -- PROGRAM [ARGS...]\n",
                 argv0);
    return 2;
}

bool parse_u64(const char *text, uint64_t max, uint64_t *out) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || text[0] == '-' || v > max) return false;
    *out = v;
    return true;
}

std::string substitute(std::string arg, const std::string &dir, const std::string &input) {
    const struct {
        const char *token;
        const std::string &value;
    } tokens[] = {{"{TMPDIR}", dir}, {"{INPUT}", input}};
    for (const auto &t : tokens) {
        const size_t len = std::strlen(t.token);
        for (size_t at = arg.find(t.token); at != std::string::npos;
             at = arg.find(t.token, at + t.value.size()))
            arg.replace(at, len, t.value);
    }
    return arg;
}

int seed_input(const std::string &path, uint64_t bytes, uint32_t seed) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        std::fprintf(stderr, "Could not open %s (%s)\n", path.c_str(), std::strerror(errno));
        return 1;
    }
    std::mt19937 gen(seed);
    std::vector<unsigned char> chunk(1 << 20);
    uint64_t done = 0;
    while (done < bytes) {
        const size_t n = bytes - done < chunk.size() ? (size_t)(bytes - done) : chunk.size();
        for (size_t i = 0; i < n; i += 4) {
            const uint32_t v = (uint32_t)gen();
            for (size_t b = 0; b < 4 && i + b < n; ++b)
                chunk[i + b] = (unsigned char)(v >> (8 * b));
        }
        size_t put = 0;
        while (put < n) {
            const ssize_t w = write(fd, chunk.data() + put, n - put);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                std::fprintf(stderr, "Could not write %s (%s)\n", path.c_str(),
                             w < 0 ? std::strerror(errno) : "no progress");
                close(fd);
                return 1;
            }
            put += (size_t)w;
        }
        done += n;
    }
    return close(fd) == 0 ? 0 : 1;
}

int remove_entry(const char *path, const struct stat *, int, struct FTW *) {
    if (remove(path) != 0)
        std::fprintf(stderr, "examples_tmpdriver: could not remove %s (%s)\n", path,
                     std::strerror(errno));
    return 0;
}

/* --check-copy: DST must hold exactly SRC's bytes from OFF on. */
int check_copy(const std::string &src_spec, const std::string &dst) {
    std::string src = src_spec;
    uint64_t offset = 0;
    const size_t at = src_spec.rfind('@');
    if (at != std::string::npos) {
        src = src_spec.substr(0, at);
        if (!parse_u64(src_spec.c_str() + at + 1, (uint64_t)LLONG_MAX, &offset)) {
            std::fprintf(stderr, "--check-copy: bad offset in %s\n", src_spec.c_str());
            return 1;
        }
    }
    size_t src_size = 0, dst_size = 0, block = 0;
    if (stat_file(src.c_str(), &src_size, &block) || stat_file(dst.c_str(), &dst_size, &block))
        return 1;
    if (offset > src_size || dst_size != src_size - offset) {
        std::fprintf(stderr, "%s has %zu bytes, expected %zu (%s has %zu, from offset %llu)\n",
                     dst.c_str(), dst_size, src_size - (offset > src_size ? 0 : offset),
                     src.c_str(), src_size, (unsigned long long)offset);
        return 1;
    }
    uint64_t src_hash = 0, dst_hash = 0;
    if (hash_file_range(src.c_str(), (off_t)offset, dst_size, &src_hash) ||
        hash_file_range(dst.c_str(), 0, dst_size, &dst_hash))
        return 1;
    if (src_hash != dst_hash) {
        std::fprintf(stderr, "Hash mismatch: %s=0x%016llx  %s=0x%016llx\n", src_spec.c_str(),
                     (unsigned long long)src_hash, dst.c_str(), (unsigned long long)dst_hash);
        return 1;
    }
    std::printf("OK  %s -> %s  (%zu bytes, hash 0x%016llx)\n", src_spec.c_str(), dst.c_str(),
                dst_size, (unsigned long long)dst_hash);
    return 0;
}

int check_hash(const std::string &path) {
    size_t size = 0, block = 0;
    uint64_t hash = 0;
    if (stat_file(path.c_str(), &size, &block) || hash_file_range(path.c_str(), 0, size, &hash))
        return 1;
    std::printf("OK  %s  (%zu bytes, hash 0x%016llx)\n", path.c_str(), size,
                (unsigned long long)hash);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const char *base = nullptr;
    uint64_t seed_bytes = 0;
    bool seed_wanted = false;
    uint64_t seed = 97;
    std::vector<std::string> copy_checks;  // pairs: source spec, destination
    std::vector<std::string> hash_checks;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--") {
            ++i;
            break;
        }
        const bool has_value = i + 1 < argc;
        if (opt == "--base" && has_value) {
            base = argv[++i];
        } else if (opt == "--seed-input" && has_value) {
            if (!parse_u64(argv[++i], (uint64_t)LLONG_MAX, &seed_bytes)) return usage(argv[0]);
            seed_wanted = true;
        } else if (opt == "--seed" && has_value) {
            if (!parse_u64(argv[++i], UINT32_MAX, &seed)) return usage(argv[0]);
        } else if (opt == "--check-copy" && i + 2 < argc) {
            copy_checks.push_back(argv[++i]);
            copy_checks.push_back(argv[++i]);
        } else if (opt == "--check-hash" && has_value) {
            hash_checks.push_back(argv[++i]);
        } else {
            return usage(argv[0]);
        }
    }
    if (!base || i >= argc) return usage(argv[0]);

    char base_abs[PATH_MAX];
    if (!realpath(base, base_abs)) {
        std::fprintf(stderr, "examples_tmpdriver: %s: %s\n", base, std::strerror(errno));
        return 2;
    }
    /* Signals wait until the child's pid is known, so each one reaches it. */
    sigset_t forwarded, old_mask;
    sigemptyset(&forwarded);
    for (int sig : kForwarded) sigaddset(&forwarded, sig);
    sigprocmask(SIG_BLOCK, &forwarded, &old_mask);
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    sigemptyset(&action.sa_mask);
    for (int sig : kForwarded) sigaction(sig, &action, nullptr);

    std::string dir = std::string(base_abs) + "/hipfile_ex.XXXXXX";
    if (!mkdtemp(&dir[0])) {
        std::fprintf(stderr, "examples_tmpdriver: mkdtemp %s: %s\n", dir.c_str(),
                     std::strerror(errno));
        return 2;
    }
    const std::string input = dir + "/input.bin";
    int status = 0;
    if (seed_wanted && seed_input(input, seed_bytes, (uint32_t)seed)) status = 1;

    std::vector<std::string> args;
    for (int a = i; a < argc; ++a) args.push_back(substitute(argv[a], dir, input));
    for (auto &check : copy_checks) check = substitute(check, dir, input);
    for (auto &check : hash_checks) check = substitute(check, dir, input);

    if (status == 0) {
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0) {
            struct sigaction dfl;
            std::memset(&dfl, 0, sizeof dfl);
            dfl.sa_handler = SIG_DFL;
            for (int sig : kForwarded) sigaction(sig, &dfl, nullptr);
            sigprocmask(SIG_SETMASK, &old_mask, nullptr);
            if (chdir(dir.c_str()) != 0) _exit(127);
            std::vector<char *> child_argv;
            for (auto &a : args) child_argv.push_back(&a[0]);
            child_argv.push_back(nullptr);
            execvp(child_argv[0], child_argv.data());
            std::fprintf(stderr, "examples_tmpdriver: cannot run %s (%s)\n", child_argv[0],
                         std::strerror(errno));
            _exit(127);
        }
        if (pid < 0) {
            std::fprintf(stderr, "examples_tmpdriver: fork: %s\n", std::strerror(errno));
            status = 1;
        } else {
            g_child = pid;
            sigprocmask(SIG_SETMASK, &old_mask, nullptr);
            int wstatus = 0;
            while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
            }
            status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        }
    }
    if (status == 0 && g_signal == 0) {
        for (size_t c = 0; c + 1 < copy_checks.size() && status == 0; c += 2)
            status = check_copy(copy_checks[c], copy_checks[c + 1]);
        for (size_t c = 0; c < hash_checks.size() && status == 0; ++c)
            status = check_hash(hash_checks[c]);
    }
    std::fflush(nullptr);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr); /* a signal now is handled after the cleanup */
    nftw(dir.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);

    if (g_signal != 0) {
        const int sig = g_signal;
        signal(sig, SIG_DFL);
        raise(sig);
        return 128 + sig;
    }
    return status;
}
