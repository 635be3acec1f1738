package org.sdp4j.log;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Where libsdp puts {@code log destination file NAME} (log.c {@code __sdp_log_set_log_file}, after its 2010
 * "fix security issues with log file"): root logs to {@code /var/log/<NAME without directories>}; any other user to
 * {@code <NAME>.<uid>/log} when NAME has a '/', else {@code /tmp/<NAME>.<uid>/log}, in a directory created 0700
 * that must be a real directory owned by that uid with no group or other permissions. sdp4j follows it, so an
 * existing libsdp.conf logs where it always did; the agent's {@code log=...:file:PATH} option is a plain path.
 */
final class LogFiles {
    private LogFiles() {}

    /** @param uid the effective uid, or -1 when unknown (then NAME is used as written) */
    static Path placeConfigName(String name, int uid) throws IOException {
        if (uid < 0) {
            return Path.of(name);
        }
        int slash = name.lastIndexOf('/');
        if (uid == 0) {
            return Path.of("/var/log", slash >= 0 ? name.substring(slash + 1) : name);
        }
        Path dir = slash >= 0 ? Path.of(name + "." + uid) : Path.of("/tmp", name + "." + uid);
        prepareDirectory(dir, uid);
        return dir.resolve("log");
    }

    private static void prepareDirectory(Path dir, int uid) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(Set.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE)));
            return;
        } catch (FileAlreadyExistsException e) {
            // checked below, as libsdp does when mkdir says EEXIST
        } catch (UnsupportedOperationException e) {
            throw new IOException("cannot create " + dir + " with owner-only permissions on this file system");
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("refusing to log into " + dir + ": not a directory (or a symbolic link)");
        }
        Object owner = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        boolean ownerOnly = perms.stream().allMatch(p -> p == PosixFilePermission.OWNER_READ
                || p == PosixFilePermission.OWNER_WRITE || p == PosixFilePermission.OWNER_EXECUTE);
        if (!(owner instanceof Integer o && o == uid) || !ownerOnly) {
            throw new IOException("refusing to log into " + dir + ": it must belong to uid " + uid
                    + " and be accessible by its owner only (libsdp's rule), it is owned by uid " + owner
                    + " with " + PosixFilePermissions.toString(perms));
        }
    }

    /** The effective uid, -1 off Linux. */
    static int currentUid() {
        return org.sdp4j.conf.SafePaths.effectiveUid();
    }
}
