import Foundation

/// xar archives (a `.pkg`'s format) whose table of contents is made to cost its reader: written
/// byte by byte by a script of ours (Python's zlib, streamed, so hundreds of megabytes of table
/// cost little to write), a 28-byte header then the zlib'd table, with no heap.
public enum HostileXar {
    /// Writes at `path` a xar whose table lists `entries` empty members: the same `<file>` each
    /// time when `identical` (a bomb: deflate's best ratio), else each its own. `declared`
    /// replaces the uncompressed length the header gives; `extraCompressed` is added to the
    /// compressed length it gives. Returns the table's uncompressed and compressed lengths.
    @discardableResult
    public static func write(_ path: String, entries: Int, identical: Bool, declared: UInt64? = nil, extraCompressed: UInt64 = 0) throws
        -> (uncompressed: UInt64, compressed: UInt64) {
        let script = ["import", "struct,", "sys,", "zlib"].joined(separator: " ") + """

            path, entries, identical, declared, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1', sys.argv[4], int(sys.argv[5])
            compressor = zlib.compressobj(9)
            pieces, total = [], 0
            def add(text):
                global total
                total += len(text)
                pieces.append(compressor.compress(text))
            add(b'<?xml version="1.0" encoding="UTF-8"?>\\n<xar>\\n <toc>\\n  <creation-time>2026-11-27T00:00:00</creation-time>\\n')
            entry = b'  <file id="1"><name>PackageInfo</name><type>file</type><mode>0644</mode></file>\\n'
            block = 10000
            for start in range(0, entries, block):
                count = min(block, entries - start)
                if identical:
                    add(entry * count)
                else:
                    add(b''.join(b'  <file id="%d"><name>m%d</name><type>file</type><mode>0644</mode></file>\\n' % (i + 1, i)
                                 for i in range(start, start + count)))
            add(b' </toc>\\n</xar>\\n')
            pieces.append(compressor.flush())
            table = b''.join(pieces)
            length = int(declared) if declared else total
            with open(path, 'wb') as out:
                out.write(struct.pack('>4sHHQQI', b'xar!', 28, 1, len(table) + extra, length, 0))
                out.write(table)
            print(total, len(table))
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script, path, "\(entries)", identical ? "1" : "0",
                                                           declared.map { "\($0)" } ?? "", "\(extraCompressed)"])
        let figures = made.standardOutput.split(separator: " ").compactMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard made.status == 0, figures.count == 2 else { throw InstallerPackageBuilder.Failure("writing a hostile xar: \(made)") }
        return (figures[0], figures[1])
    }
}
