import Foundation
import GraphICSSync
import TestSupport
import Testing

@Suite struct SyncLockTests {
    let directory: TemporaryDirectory
    let folder = "/home/adele/calendar"

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func lockFileText() -> String? {
        fileText(SyncLock.path(directory: directory.path, folder: folder))
    }

    @Test("a second lock of one folder waits, then fails naming the holder's process id")
    func secondLockFails() throws {
        let holder = try SyncLock(directory: directory.path, folder: folder)
        #expect(lockFileText() == "\(getpid())\n")
        let started = ContinuousClock.now
        let error = try #require(throws: SyncStoreError.self) {
            try SyncLock(directory: directory.path, folder: folder, timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(error.code == .locked)
        #expect(error.message.contains("process \(getpid())"))
        #expect(error.message.contains(folder))
        // The failed attempt changed nothing: the holder still holds, its id is still there.
        #expect(lockFileText() == "\(getpid())\n")
        withExtendedLifetime(holder) {}
    }

    @Test("a lock released (or dropped) can be taken again at once; other folders are not blocked")
    func releaseAndOtherFolders() throws {
        let first = try SyncLock(directory: directory.path, folder: folder)
        let other = try SyncLock(directory: directory.path, folder: "/home/adele/other", timeout: .zero)
        first.release()
        #expect(lockFileText() == "")
        do {
            let second = try SyncLock(directory: directory.path, folder: folder, timeout: .zero)
            withExtendedLifetime(second) {}
        }
        // The second lock went with its scope.
        let third = try SyncLock(directory: directory.path, folder: folder, timeout: .zero)
        withExtendedLifetime((other, third)) {}
    }

    @Test("the state directory is created for the lock when it is missing")
    func createsDirectory() throws {
        let missing = directory.file("new/state")
        let lock = try SyncLock(directory: missing, folder: folder, timeout: .zero)
        #expect(lock.path.hasPrefix(missing + "/sync-"))
        #expect(FileManager.default.fileExists(atPath: lock.path))
    }

    @Test("a waiting sync gets the lock when the holder finishes within the wait")
    func waiterGetsLockWhenReleased() throws {
        // Handed to one other thread, which alone uses it from then on.
        nonisolated(unsafe) let holder = try SyncLock(directory: directory.path, folder: folder)
        let released = Locked(false)
        Thread {
            usleep(300_000)
            released.set(true)
            holder.release()
        }.start()
        let waiter = try SyncLock(directory: directory.path, folder: folder, timeout: .seconds(10))
        #expect(released.value)
        #expect(lockFileText() == "\(getpid())\n")
        withExtendedLifetime(waiter) {}
    }

    @Test("another process's lock is seen, named by its id, and gone when that process is killed")
    func otherProcess() throws {
        let path = SyncLock.path(directory: directory.path, folder: folder)
        // util-linux's flock(1) takes the same flock(2) lock; the shell writes its id the way SyncLock does
        // and then becomes `sleep`, keeping both the id and the descriptor.
        let child = try ChildProcess(
            "/bin/sh", ["-c", "exec 9<>\"$0\" && flock -x 9 && echo $$ >\"$0\" && exec sleep 30", path])
        defer { child.signal(SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(10)
        while lockFileText() != "\(child.pid)\n", ContinuousClock.now < deadline {
            usleep(20_000)
        }
        let error = try #require(throws: SyncStoreError.self) {
            try SyncLock(directory: directory.path, folder: folder, timeout: .milliseconds(200))
        }
        #expect(error.message.contains("process \(child.pid)"))
        child.signal(SIGKILL)
        _ = try child.wait(timeout: 30)
        let lock = try SyncLock(directory: directory.path, folder: folder, timeout: .seconds(2))
        #expect(lockFileText() == "\(getpid())\n")
        withExtendedLifetime(lock) {}
    }
}
