#ifndef BUNDLEFS_CSYSTEMSHIMS_H
#define BUNDLEFS_CSYSTEMSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/xattr.h>

/// getdents64(2): one call fills `buffer` with as many entries as fit.
ssize_t bfs_getdents64(int fd, void *buffer, size_t size);

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: `path` may not escape `dirfd`,
/// through `..` or through symlinks. Returns -1 with errno EXDEV when it would.
int bfs_openat_beneath(int dirfd, const char *path, int flags);

/// openat2(2) as `bfs_openat_beneath`, and no component may be a symlink (RESOLVE_NO_SYMLINKS):
/// -1 with errno ELOOP when one is.
int bfs_openat_beneath_no_symlinks(int dirfd, const char *path, int flags);

/// O_PATH, which Glibc exposes to Swift only under _GNU_SOURCE.
extern const int bfs_o_path;

/// pipe2(2), hidden from Swift without _GNU_SOURCE.
int bfs_pipe2(int fds[2], int flags);

/// posix_spawn_file_actions_addclosefrom_np, hidden from Swift without _GNU_SOURCE: a spawned
/// daemon must not keep descriptors its parent inherited (a test runner's pipes would never close).
#include <spawn.h>
int bfs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Installs a handler that does nothing for `signal`, without SA_RESTART: delivering it to a
/// thread interrupts the blocking call it is in (a FUSE session's read) with EINTR.
int bfs_install_interrupting_handler(int signal);

/// malloc_trim(0), whose header Swift's Glibc module does not include.
int bfs_malloc_trim(void);

/// mallopt(M_ARENA_MAX, count).
int bfs_limit_malloc_arenas(int count);

/// An open-file-description write lock on the whole file (F_OFD_SETLK): 0, or -1 with errno
/// EAGAIN or EACCES when another description holds a lock on it.
int bfs_ofd_lock(int fd);

/// Whether another open file description holds a lock on the file (F_OFD_GETLK): 1, 0, or -1 with
/// errno. Looking takes no lock, so a reader never turns the lock's next holder away.
int bfs_ofd_lock_held(int fd);

/// fanotify_init(2) and fanotify_mark(2), whose header Swift's Glibc module does not include.
int bfs_fanotify_init(unsigned int flags, unsigned int event_flags);
int bfs_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd, const char *path);

/// The file handle of a directory (name_to_handle_at, hidden without _GNU_SOURCE) and its
/// filesystem's id (statfs's f_fsid, which fanotify reports beside each handle): by descriptor
/// when `fd` >= 0, else by `path` (a final symlink not followed). Returns the handle's length, or
/// -1 with errno (EOPNOTSUPP: the filesystem gives no handles; EOVERFLOW: longer than `capacity`).
int bfs_directory_handle(int fd, const char *path, unsigned char *handle, unsigned int capacity, int *type, uint64_t *fsid);

/// Accessors for struct linux_dirent64 records inside a getdents64 buffer.
uint16_t bfs_dirent_reclen(const void *record);
uint8_t bfs_dirent_type(const void *record);
uint64_t bfs_dirent_ino(const void *record);
const char *bfs_dirent_name(const void *record);

#endif
