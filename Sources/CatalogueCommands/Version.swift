/// The one place bundlefs's version is written: `bundlefs --version` prints it, and `make deb`
/// reads it from here for the package's version and file name (Debian/build-deb).
package enum BundleFSVersion {
    package static let string = "0.2.0"
}
