package org.sdp4j.conf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * File checks for what another local user could have planted: the type of a file without opening it, and whether
 * anyone but root could have written a file or any directory or symbolic link on the way to it. Used for the
 * config (read by root JVMs before {@code main}) and for log files (appended to by root).
 */
public final class SafePaths {
    private SafePaths() {}

    static final int S_IFMT = 0170000, S_IFREG = 0100000, S_IFDIR = 0040000, S_IFLNK = 0120000, S_IFIFO = 0010000,
            S_IFCHR = 0020000, S_IFBLK = 0060000, S_IFSOCK = 0140000;
    private static final int STICKY = 01000, GROUP_W = 020, OTHER_W = 02;
    private static final int MAX_LINKS = 40; // Linux's MAXSYMLINKS

    /** The effective uid (the owner of /proc/self, proc(5)); -1 where it cannot be read (not Linux). */
    public static int effectiveUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** What a {@code st_mode} is, in words: "a FIFO", "a directory", ... */
    public static String typeName(int mode) {
        switch (mode & S_IFMT) {
            case S_IFREG: return "a regular file";
            case S_IFDIR: return "a directory";
            case S_IFLNK: return "a symbolic link";
            case S_IFIFO: return "a FIFO (named pipe)";
            case S_IFCHR: return "a character device";
            case S_IFBLK: return "a block device";
            case S_IFSOCK: return "a socket";
            default: return "a file of type 0" + Integer.toOctalString(mode & S_IFMT);
        }
    }

    /** lstat(2): mode, uid, gid, ino, dev of {@code p} itself (a link is not followed). */
    public static Map<String, Object> lstat(Path p) throws IOException {
        return Files.readAttributes(p, "unix:mode,uid,gid,ino,dev", LinkOption.NOFOLLOW_LINKS);
    }

    /** stat(2): the same, following links. */
    public static Map<String, Object> stat(Path p) throws IOException {
        return Files.readAttributes(p, "unix:mode,uid,gid,ino,dev");
    }

    public static int mode(Map<String, Object> st) {
        return (Integer) st.get("mode");
    }

    public static int uid(Map<String, Object> st) {
        return (Integer) st.get("uid");
    }

    /** Whether two stat results are the same file (device and inode). */
    public static boolean sameFile(Map<String, Object> a, Map<String, Object> b) {
        return a.get("ino").equals(b.get("ino")) && a.get("dev").equals(b.get("dev"));
    }

    /**
     * Resolves {@code path} one component at a time, as the kernel does, and checks that no user but root could
     * have changed what it resolves to: every directory on the way (of the path as written and of every symbolic
     * link's target) and the file itself must belong to root, and be writable by nobody else — not by others, not
     * by a group other than root's — unless a directory has the sticky bit (then others cannot rename or remove
     * what root owns in it, and what is in it is checked in turn). Returns the resolved path.
     *
     * @throws IOException naming the first file, directory or link another user could write
     */
    public static Path requireRootOnly(Path path) throws IOException {
        Path abs = path.toAbsolutePath();
        Path cur = abs.getRoot();
        Deque<String> todo = new ArrayDeque<>();
        push(todo, abs);
        requireRootOwned(cur, stat(cur), true);
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                cur = cur.getParent() == null ? cur : cur.getParent();
                continue;
            }
            Path next = cur.resolve(name);
            Map<String, Object> st = lstat(next);
            if ((mode(st) & S_IFMT) == S_IFLNK) {
                // the link lives in cur, checked already; its own mode means nothing on Linux, its owner does
                // in a sticky directory (protected_symlinks), so it must be root's too
                requireRootOwned(next, st, false);
                if (++links > MAX_LINKS) {
                    throw new IOException(path + ": too many levels of symbolic links");
                }
                Path target = Files.readSymbolicLink(next);
                push(todo, target);
                if (target.getRoot() != null) {
                    cur = target.getRoot();
                }
                continue;
            }
            requireRootOwned(next, st, !todo.isEmpty() || (mode(st) & S_IFMT) == S_IFDIR);
            cur = next;
        }
        return cur;
    }

    private static void push(Deque<String> todo, Path p) {
        for (int i = p.getNameCount() - 1; i >= 0; i--) {
            todo.push(p.getName(i).toString());
        }
    }

    private static void requireRootOwned(Path p, Map<String, Object> st, boolean directory) throws IOException {
        int mode = mode(st);
        int uid = uid(st);
        int gid = (Integer) st.get("gid");
        String what = (mode & S_IFMT) == S_IFLNK ? "the symbolic link " : directory ? "the directory " : "";
        if (uid != 0) {
            throw new IOException(what + p + " belongs to uid " + uid + ", who could change it; a JVM running as"
                    + " root reads only what root alone can write");
        }
        if ((mode & S_IFMT) == S_IFLNK) {
            return;
        }
        boolean sticky = directory && (mode & STICKY) != 0;
        if ((mode & OTHER_W) != 0 && !sticky) {
            throw new IOException(what + p + " is writable by every user (mode " + Integer.toOctalString(mode & 07777)
                    + "); a JVM running as root reads only what root alone can write");
        }
        if ((mode & GROUP_W) != 0 && gid != 0 && !sticky) {
            throw new IOException(what + p + " is writable by group " + gid + " (mode "
                    + Integer.toOctalString(mode & 07777) + "); a JVM running as root reads only what root alone"
                    + " can write");
        }
    }

    /**
     * Runs {@code io} (an open, a read) on a daemon thread and waits at most {@code millis}: Java cannot open with
     * {@code O_NONBLOCK}, and a FIFO swapped in after a check blocks {@code open(2)} until someone opens the other
     * end. On timeout the thread is interrupted (which closes an interruptible channel it blocks in) and left.
     *
     * @throws TimeoutException when it did not finish in time
     * @throws IOException what {@code io} threw
     */
    public static <T> T bounded(Callable<T> io, long millis, String threadName) throws IOException, TimeoutException {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(io.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
        try {
            return result.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            t.interrupt();
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io2) {
                throw io2;
            }
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException(c);
        }
    }
}
