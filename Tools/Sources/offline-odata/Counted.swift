/// `count` with its noun in the right number: "1 page", "2 pages", "1 entity", "0 entities".
/// Every count the tool prints for people goes through it.
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
