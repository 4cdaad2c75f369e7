import SystemCalls

/// Who may read what a synthesized item shows (SPEC.md, "Nothing leaks"). With `--allow-other`
/// the kernel checks permissions (`default_permissions`) against the attributes the view gives,
/// so a synthesized item gets an owner, a group and a mode that grant a class of users no more
/// than every source item it is made from grants that class: its contents are no more readable
/// through the view than in SOURCE.
struct Access: Equatable, Sendable {
    var userID: UInt32
    var groupID: UInt32
    /// Permission bits (only read and search bits are ever set).
    var mode: UInt32

    /// What is needed of a source item for the derived one to be readable.
    enum Need {
        /// A file whose bytes are shown.
        case read
        /// A directory whose entries are shown.
        case list
        /// A directory passed through on the way.
        case traverse

        var bits: UInt32 {
            switch self {
            case .read: 0o4
            case .list: 0o5
            case .traverse: 0o1
            }
        }
    }

    enum Class: CaseIterable {
        case owner, group, other

        var shift: UInt32 {
            switch self {
            case .owner: 6
            case .group: 3
            case .other: 0
            }
        }
    }

    /// An item owned by `owner`'s user and group, derived from `sources`: each class is granted
    /// read (and, for a directory, search) only when every source grants it what it needs.
    static func derived(owner: FileStatus, isDirectory: Bool, from sources: [(status: FileStatus, need: Need)]) -> Access {
        var mode: UInt32 = 0
        for userClass in Class.allCases where sources.allSatisfy({ grants($0.status, $0.need, to: userClass, of: owner) }) {
            mode |= (isDirectory ? 0o5 : 0o4) << userClass.shift
        }
        return Access(userID: owner.userID, groupID: owner.groupID, mode: mode)
    }

    /// Whether every user of `userClass` relative to `owner` certainly has `need` on `item`. When
    /// it is not known which of the item's classes such a user falls in (the item has another
    /// owner or group), every class they might fall in must grant it.
    static func grants(_ item: FileStatus, _ need: Need, to userClass: Class, of owner: FileStatus) -> Bool {
        let permissions = item.permissions
        let ownerBits = (permissions >> 6) & 7, groupBits = (permissions >> 3) & 7, otherBits = permissions & 7
        var bits: UInt32
        switch userClass {
        case .owner:
            bits = item.userID == owner.userID ? ownerBits : groupBits & otherBits
        case .group:
            bits = item.groupID == owner.groupID ? groupBits : groupBits & otherBits
            if item.userID != owner.userID { bits &= ownerBits }
        case .other:
            bits = otherBits
            if item.groupID != owner.groupID { bits &= groupBits }
            if item.userID != owner.userID { bits &= ownerBits }
        }
        return bits & need.bits == need.bits
    }

    /// A directory shown as it is in SOURCE, without write bits.
    static func mirrored(_ status: FileStatus) -> Access {
        Access(userID: status.userID, groupID: status.groupID, mode: status.permissions & 0o555)
    }
}
