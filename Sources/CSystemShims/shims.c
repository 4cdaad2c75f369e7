#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <sys/fanotify.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

struct bfs_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    uint16_t d_reclen;
    uint8_t d_type;
    char d_name[];
};

#include <fcntl.h>

const int bfs_o_path = O_PATH;

ssize_t bfs_getdents64(int fd, void *buffer, size_t size) {
    return syscall(SYS_getdents64, fd, buffer, size);
}

int bfs_openat_beneath(int dirfd, const char *path, int flags) {
    struct open_how how = {
        .flags = (uint64_t)flags,
        .mode = 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int bfs_openat_beneath_no_symlinks(int dirfd, const char *path, int flags) {
    struct open_how how = {
        .flags = (uint64_t)flags,
        .mode = 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

uint16_t bfs_dirent_reclen(const void *record) { return ((const struct bfs_dirent64 *)record)->d_reclen; }
uint8_t bfs_dirent_type(const void *record) { return ((const struct bfs_dirent64 *)record)->d_type; }
uint64_t bfs_dirent_ino(const void *record) { return ((const struct bfs_dirent64 *)record)->d_ino; }
const char *bfs_dirent_name(const void *record) { return ((const struct bfs_dirent64 *)record)->d_name; }

int bfs_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

int bfs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

static void bfs_do_nothing(int signal) { (void)signal; }

int bfs_install_interrupting_handler(int signal) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = bfs_do_nothing;
    sigemptyset(&action.sa_mask);
    return sigaction(signal, &action, NULL);
}

int bfs_malloc_trim(void) { return malloc_trim(0); }

int bfs_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int bfs_ofd_lock(int fd) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int bfs_ofd_lock_held(int fd) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}

int bfs_fanotify_init(unsigned int flags, unsigned int event_flags) { return fanotify_init(flags, event_flags); }

int bfs_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd, const char *path) {
    return fanotify_mark(fd, flags, mask, dirfd, path);
}

int bfs_directory_handle(int fd, const char *path, unsigned char *handle, unsigned int capacity, int *type, uint64_t *fsid) {
    union {
        struct file_handle header;
        unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    } buffer;
    buffer.header.handle_bytes = MAX_HANDLE_SZ;
    int mount_id = 0;
    int result = fd >= 0 ? name_to_handle_at(fd, "", &buffer.header, &mount_id, AT_EMPTY_PATH)
                         : name_to_handle_at(AT_FDCWD, path, &buffer.header, &mount_id, 0);
    if (result != 0) return -1;
    if (buffer.header.handle_bytes > capacity) {
        errno = EOVERFLOW;
        return -1;
    }
    struct statfs info;
    if ((fd >= 0 ? fstatfs(fd, &info) : statfs(path, &info)) != 0) return -1;
    uint32_t low, high;
    memcpy(&low, &info.f_fsid.__val[0], 4);
    memcpy(&high, &info.f_fsid.__val[1], 4);
    *fsid = (uint64_t)low | ((uint64_t)high << 32);
    *type = buffer.header.handle_type;
    memcpy(handle, buffer.header.f_handle, buffer.header.handle_bytes);
    return (int)buffer.header.handle_bytes;
}
