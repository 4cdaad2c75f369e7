// Writes the sample tree (`make sample` regenerates Sample/ in the repository).
import Fixtures

let arguments = CommandLine.arguments.dropFirst()
guard let destination = arguments.first, arguments.count == 1 else {
    print("usage: bundlefs-sample DIRECTORY   (replaces DIRECTORY with the sample tree)")
    exit(1)
}
SampleTree.write(to: destination.hasPrefix("/") ? destination : currentDirectory() + "/" + destination)

import Glibc

func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
}
