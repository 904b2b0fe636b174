//! The table checked against the Vulkan registry, `vk.xml`: its
//! `<spirvcapabilities>` and `<spirvextensions>` sections are what the
//! specification's "SPIR-V Environment" appendix is generated from.
//!
//! Every capability and SPIR-V extension the registry allows (but those of
//! the vendors the table leaves to the driver) must be a row of the table,
//! with the registry's alternatives mapped through `names.rs`; every row must
//! be in the registry, or in [`NEWER_THAN_HEADER_239`]. The registry is
//! `/usr/share/vulkan/registry/vk.xml` (Debian's `libvulkan-dev`, which
//! `scripts/setup.sh` installs), or the file `SMOLV_VK_XML` names.
//!
//! A check rather than a generator: the numbers come from SPIR-V, not
//! `vk.xml`; the table leaves most vendors' entries out (the device's
//! extension set is 64 bits); and CI's header is older than some rows. A
//! generator would need the same three rules, plus a second source.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use ash::vk;
use smolv_format::spirv::spec::Capability;

use super::table::SPIRV_EXTENSIONS;
use super::{Extension, Feature, Need, capability};

/// Rows of the table that header 239's `vk.xml` (Debian 12's and CI's)
/// does not have: later headers added them, with the alternatives the
/// table gives (checked against header 281's, the one ash 0.38 is built
/// from). Only their absence is allowed: a `vk.xml` that has them is
/// compared like any other.
const NEWER_THAN_HEADER_239: &[&str] = &[
    // Header 241 added the extension; the capability was there before.
    "SPV_EXT_fragment_fully_covered",
    // VK_KHR_ray_tracing_position_fetch: header 249.
    "RayTracingPositionFetchKHR",
    "RayQueryPositionFetchKHR",
    "SPV_KHR_ray_tracing_position_fetch",
    // VK_KHR_cooperative_matrix: header 255.
    "CooperativeMatrixKHR",
    "SPV_KHR_cooperative_matrix",
    // VK_KHR_shader_subgroup_rotate and VK_KHR_shader_maximal_reconvergence: header 276.
    "GroupNonUniformRotateKHR",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_maximal_reconvergence",
];

/// Alternatives that header 239 lists and a later header took back as
/// mistakes: the entry, the alternative, and the header that dropped it.
/// The table follows the correction; the check drops them from older
/// headers.
const TAKEN_BACK_AFTER_HEADER_239: &[(&str, Need, u32)] = &[
    // Vulkan 1.3 did not promote VK_KHR_shader_subgroup_uniform_control_flow.
    ("SPV_KHR_subgroup_uniform_control_flow", Need::Version(vk::API_VERSION_1_3), 310),
];

/// Alternatives the table keeps beyond the registry's, on purpose: the
/// entry and the alternative.
const BEYOND_THE_REGISTRY: &[(&str, Need)] = &[
    // Vulkan 1.2 promoted VK_EXT_shader_viewport_index_layer as the
    // `shaderOutputViewportIndex` and `shaderOutputLayer` features (the
    // specification's promotion notes), and the extension table takes
    // `SPV_EXT_shader_viewport_index_layer` on 1.2 for it; vk.xml lists
    // only the extensions for the capability. glslang and DXC declare it
    // when a vertex shader writes the layer or viewport index.
    ("ShaderViewportIndexLayerEXT", Need::Feature(Feature::ShaderOutputViewportIndex)),
];

/// The newest header whose every KHR, EXT and Google entry the table
/// must have (CI's, Debian 12's). A newer `vk.xml` (`SMOLV_VK_XML`) is
/// still compared row by row, but what it adds beyond this header is
/// listed, not failed: the table follows CI's registry.
const PINNED_HEADER: u32 = 239;

/// The author tags (`<tags>`) whose capabilities and extensions the table
/// lists; those of every other vendor (`NV`, `AMD`, `QCOM`, …) it leaves to
/// the driver. Google's are here because glslang and DXC emit them.
const TABLE_TAGS: &[&str] = &["KHR", "EXT", "GOOGLE"];

const DEFAULT_VK_XML: &str = "/usr/share/vulkan/registry/vk.xml";

#[test]
fn every_capability_the_registry_allows_has_the_registrys_alternatives() {
    let registry = Registry::load();
    let mut problems = Vec::new();

    // Aliases share a number (ShaderViewportIndexLayerEXT and …NV): a
    // module that declares it may use it when any entry's alternative holds.
    let mut by_number: BTreeMap<u32, Vec<&Entry>> = BTreeMap::new();
    for entry in &registry.capabilities {
        match entry.name.parse::<Capability>() {
            Ok(number) => by_number.entry(number as u32).or_default().push(entry),
            Err(()) if registry.left_to_the_driver(entry.name) => {}
            Err(()) => problems.push(format!("OpCapability {}: the spirv crate has no such capability", entry.name)),
        }
    }
    for (&number, entries) in &by_number {
        let names: Vec<_> = entries.iter().map(|e| e.name).collect();
        let what = format!("OpCapability {} ({number})", names.join(" / "));
        let row = capability(number);
        if row.is_none() && names.iter().all(|name| registry.left_to_the_driver(name)) {
            continue;
        }
        let Some(row) = row else {
            registry.missing(&what, &raw(entries), &mut problems);
            continue;
        };
        if let Some(mut expected) = registry.alternatives(entries, &what, &mut problems) {
            expected.extend(BEYOND_THE_REGISTRY.iter().filter(|(name, _)| names.contains(name)).map(|&(_, need)| need));
            compare(&what, row.any_of, &expected, &mut problems);
        }
    }

    for number in 0..=u32::from(u16::MAX) {
        let Some(row) = capability(number) else { continue };
        let name = row.declared.strip_prefix("OpCapability ").unwrap_or(row.declared);
        match Capability::from_u32(number) {
            Some(spirv) if format!("{spirv:?}") == name => {}
            spirv => problems.push(format!("capability {number}: the table says {name}, SPIR-V says {spirv:?}")),
        }
        registry.check_listed(name, by_number.contains_key(&number), &mut problems);
    }
    report(&registry, &problems);
}

#[test]
fn every_spirv_extension_the_registry_allows_has_the_registrys_alternatives() {
    let registry = Registry::load();
    let mut problems = Vec::new();
    let rows: Vec<_> = SPIRV_EXTENSIONS
        .iter()
        .map(|row| (row.declared.strip_prefix("OpExtension ").unwrap_or(row.declared), row))
        .collect();

    for entry in &registry.extensions {
        let what = format!("OpExtension {}", entry.name);
        let row = rows.iter().find(|(name, _)| *name == entry.name);
        if row.is_none() && registry.left_to_the_driver(entry.name) {
            continue;
        }
        let Some((_, row)) = row else {
            registry.missing(&what, &raw(&[entry]), &mut problems);
            continue;
        };
        if let Some(expected) = registry.alternatives(&[entry], &what, &mut problems) {
            compare(&what, row.any_of, &expected, &mut problems);
        }
    }

    let mut seen = HashSet::new();
    for &(name, _) in &rows {
        if !seen.insert(name) {
            problems.push(format!("OpExtension {name}: two rows of the table"));
        }
        registry.check_listed(name, registry.extensions.iter().any(|e| e.name == name), &mut problems);
    }
    report(&registry, &problems);
}

#[test]
fn the_reader_takes_enables_aliases_core_structures_and_tags_past_comments() {
    let xml = r#"<?xml version="1.0"?>
        <registry>
        <!-- <spirvcapability name="Commented"> -->
        <tags><tag name="NV" author="NVIDIA"/><tag name="KHR" author="Khronos"/></tags>
        <types>
            <type category="struct" name="VkThingFeatures" comment="a > b"><member>VkBool32 thing</member></type>
            <type category="struct" name="VkThingFeaturesKHR" alias="VkThingFeatures"/>
        </types>
        <feature api="vulkan" name="VK_VERSION_1_1"><require><type name="VkThingFeatures"/></require></feature>
        <extensions><extension name="VK_KHR_x"><require><type name="VkOther"/></require></extension></extensions>
        <spirvcapabilities>
            <spirvcapability name="Thing">
                <enable struct="VkThingFeaturesKHR" feature="thing" requires="VK_KHR_thing" />
                <enable version="VK_VERSION_1_1"/>
            </spirvcapability>
        </spirvcapabilities>
        </registry>"#;
    let registry = Registry::read(xml);
    assert_eq!(registry.capabilities.len(), 1);
    let thing = &registry.capabilities[0];
    assert_eq!(thing.name, "Thing");
    assert_eq!(
        thing.enables[0],
        [("struct", "VkThingFeaturesKHR"), ("feature", "thing"), ("requires", "VK_KHR_thing")]
    );
    assert_eq!(thing.enables[1], [("version", "VK_VERSION_1_1")]);
    assert_eq!(registry.canonical("VkThingFeaturesKHR"), "VkThingFeatures");
    assert!(registry.core.contains("VkThingFeatures") && !registry.core.contains("VkOther"));
    assert!(registry.left_to_the_driver("ThingNV") && registry.left_to_the_driver("SPV_NV_thing"));
    assert!(!registry.left_to_the_driver("ThingKHR") && !registry.left_to_the_driver("Thing"));
}

/// One `<spirvcapability>` or `<spirvextension>`: its name and the
/// attributes of each `<enable>`, any one of which allows it.
#[derive(Debug)]
struct Entry {
    name: &'static str,
    enables: Vec<Attributes>,
}

type Attributes = Vec<(&'static str, &'static str)>;

/// What the check reads of `vk.xml`.
#[derive(Debug, Default)]
struct Registry {
    path: PathBuf,
    header: Option<u32>,
    capabilities: Vec<Entry>,
    extensions: Vec<Entry>,
    /// Structure aliases (`VkPhysicalDeviceFoo…KHR` → the promoted name).
    aliases: HashMap<&'static str, &'static str>,
    /// The types a core version (`VK_VERSION_1_x`) requires.
    core: HashSet<&'static str>,
    /// The author tags the table leaves to the driver.
    vendors: Vec<&'static str>,
}

/// An `<enable>`, as the table writes it.
enum Alternative {
    /// Vulkan 1.0: every device.
    Every,
    Need(Need),
}

impl Registry {
    fn load() -> Self {
        let path = vk_xml_path();
        let xml = std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!(
                "cannot read the Vulkan registry {} ({error}): install libvulkan-dev (scripts/setup.sh does), \
                 or set SMOLV_VK_XML to a vk.xml",
                path.display()
            )
        });
        // `Need::Property` holds a `&'static str`: the file lives as long as the test.
        Self { path, ..Self::read(xml.leak()) }
    }

    fn read(xml: &'static str) -> Self {
        let mut registry = Registry {
            header: xml
                .split_once("VK_HEADER_VERSION</name>")
                .and_then(|(_, after)| after.trim_start().split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|digits| digits.parse().ok()),
            ..Registry::default()
        };
        // The `<spirvcapability>` or `<spirvextension>` being read.
        let mut open = None;
        let mut in_core = false;
        for tag in tags(xml) {
            let get = |key: &str| tag.attributes.iter().find(|(k, _)| *k == key).map(|&(_, v)| v);
            match (tag.name, tag.closing) {
                ("spirvcapability" | "spirvextension", false) => {
                    registry
                        .entries(tag.name)
                        .push(Entry { name: get("name").unwrap_or_default(), enables: Vec::new() });
                    open = Some(tag.name);
                }
                ("spirvcapability" | "spirvextension", true) => open = None,
                ("enable", false) => {
                    if let Some(entry) = open.and_then(|section| registry.entries(section).last_mut()) {
                        entry.enables.push(tag.attributes.clone());
                    }
                }
                ("feature", false) => in_core = get("name").is_some_and(|name| name.contains("VERSION_1_")),
                ("feature", true) => in_core = false,
                ("type", false) => {
                    if let (Some(name), Some(alias)) = (get("name"), get("alias")) {
                        registry.aliases.insert(name, alias);
                    }
                    if in_core && let Some(name) = get("name") {
                        registry.core.insert(name);
                    }
                }
                ("tag", false) => {
                    if let Some(name) = get("name").filter(|name| !TABLE_TAGS.contains(name)) {
                        registry.vendors.push(name);
                    }
                }
                _ => {}
            }
        }
        registry
    }

    fn entries(&mut self, section: &str) -> &mut Vec<Entry> {
        if section == "spirvcapability" { &mut self.capabilities } else { &mut self.extensions }
    }

    /// A capability (named for its vendor: `…NV`) or extension
    /// (`SPV_NV_…`) of a vendor the table leaves to the driver.
    fn left_to_the_driver(&self, name: &str) -> bool {
        self.vendors.iter().any(|tag| {
            name.strip_prefix("SPV_").and_then(|rest| rest.strip_prefix(tag)).is_some_and(|rest| rest.starts_with('_'))
                || (!name.starts_with("SPV_")
                    && name.strip_suffix(tag).is_some_and(|stem| stem.ends_with(|c: char| !c.is_ascii_uppercase())))
        })
    }

    fn canonical(&self, mut structure: &'static str) -> &'static str {
        // An alias of an alias is allowed; the bound keeps a cycle from looping.
        for _ in 0..8 {
            match self.aliases.get(structure) {
                Some(&target) => structure = target,
                None => break,
            }
        }
        structure
    }

    /// Whether a member of `a` and the same-named member of `b` are one
    /// feature: the same structure (through aliases), or two core ones
    /// (`VkPhysicalDevice16BitStorageFeatures` and
    /// `VkPhysicalDeviceVulkan11Features`: the second gathers the first).
    fn same_structure(&self, a: &'static str, b: &'static str) -> bool {
        let (a, b) = (self.canonical(a), self.canonical(b));
        a == b || (self.core.contains(a) && self.core.contains(b))
    }

    /// The alternatives `entries` allow it with, as the table should write
    /// them; `None` when `names.rs` cannot say one of them (a problem).
    fn alternatives(&self, entries: &[&Entry], what: &str, problems: &mut Vec<String>) -> Option<Vec<Need>> {
        let mut needs = Vec::new();
        let mut every = false;
        let mut unsaid = false;
        for entry in entries {
            for enable in &entry.enables {
                match self.alternative(enable) {
                    Ok(Alternative::Every) => every = true,
                    Ok(Alternative::Need(need)) if needs.contains(&need) || self.taken_back(entry.name, need) => {}
                    Ok(Alternative::Need(need)) => needs.push(need),
                    Err(why) => {
                        problems.push(format!("{what}: the registry allows it with {why}"));
                        unsaid = true;
                    }
                }
            }
        }
        (!unsaid).then(|| if every { Vec::new() } else { needs })
    }

    /// An entry of the registry the table lacks: a problem up to
    /// [`PINNED_HEADER`], a note past it.
    fn missing(&self, what: &str, allowed_by: &str, problems: &mut Vec<String>) {
        let message = format!("{what}: not in the table; the registry allows it with {allowed_by}");
        if self.header.is_some_and(|header| header > PINNED_HEADER) {
            eprintln!("note (header {:?}, newer than {PINNED_HEADER}): {message}", self.header);
        } else {
            problems.push(message);
        }
    }

    fn taken_back(&self, name: &str, need: Need) -> bool {
        TAKEN_BACK_AFTER_HEADER_239.iter().any(|&(entry, wrong, fixed)| {
            entry == name && wrong == need && self.header.is_none_or(|header| header < fixed)
        })
    }

    /// One `<enable>`. Its `requires` (the version or extension that brings
    /// the structure) is not compared: a row names the feature, and the
    /// device has it only where its structure exists.
    fn alternative(&self, enable: &Attributes) -> Result<Alternative, String> {
        let get = |key: &str| enable.iter().find(|(k, _)| *k == key).map(|&(_, v)| v);
        if let Some(version) = get("version") {
            let minor = version
                .strip_prefix("VK_VERSION_1_")
                .or_else(|| version.strip_prefix("VK_API_VERSION_1_"))
                .and_then(|minor| minor.parse().ok())
                .ok_or_else(|| format!("{version}, which is not a Vulkan 1.x"))?;
            return Ok(match minor {
                0 => Alternative::Every,
                minor => Alternative::Need(Need::Version(vk::make_api_version(0, 1, minor, 0))),
            });
        }
        if let Some(name) = get("extension") {
            let extension = Extension::from_name(name).ok_or_else(|| format!("{name}, which names.rs lacks"))?;
            return Ok(Alternative::Need(Need::Extension(extension)));
        }
        if let (Some(structure), Some(member)) = (get("struct"), get("feature")) {
            let feature = Feature::ALL
                .iter()
                .find(|f| f.name() == member && self.same_structure(f.structure(), structure))
                .ok_or_else(|| format!("{structure}::{member}, which names.rs lacks"))?;
            return Ok(Alternative::Need(Need::Feature(*feature)));
        }
        if let (Some(structure), Some(member), Some(value)) = (get("property"), get("member"), get("value")) {
            if member == "subgroupSupportedOperations" {
                let operation = subgroup_operation(value).ok_or_else(|| format!("{value}, which ash lacks"))?;
                return Ok(Alternative::Need(Need::Subgroup(operation)));
            }
            if structure == "VkPhysicalDeviceVulkan12Properties" && value == "VK_TRUE" {
                return Ok(Alternative::Need(Need::Property(member)));
            }
            return Err(format!("{structure}::{member} = {value}, which `Need::Property` cannot say"));
        }
        Err(format!("an <enable> this test does not read: {enable:?}"))
    }

    /// A row the registry lacks must be listed as newer; a listed one this
    /// header has should leave the list.
    fn check_listed(&self, name: &str, in_registry: bool, problems: &mut Vec<String>) {
        let listed = NEWER_THAN_HEADER_239.contains(&name);
        if !in_registry && !listed {
            problems.push(format!(
                "{name}: in the table, not in the registry (if a newer header adds it, list it in NEWER_THAN_HEADER_239)"
            ));
        }
        if in_registry && listed && self.header.is_some_and(|header| header <= 239) {
            problems.push(format!("{name}: in NEWER_THAN_HEADER_239, but header {:?} has it", self.header));
        }
    }
}

/// `SMOLV_VK_XML` (when set and not empty), else Debian's `vk.xml`.
#[allow(clippy::disallowed_methods, reason = "the check's one read of the environment")]
fn vk_xml_path() -> PathBuf {
    std::env::var_os("SMOLV_VK_XML")
        .filter(|path| !path.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_VK_XML), PathBuf::from)
}

/// `VK_SUBGROUP_FEATURE_BALLOT_BIT` (or `…_PARTITIONED_BIT_NV`), as ash's flag.
fn subgroup_operation(value: &str) -> Option<vk::SubgroupFeatureFlags> {
    let name = value.strip_prefix("VK_SUBGROUP_FEATURE_")?.replacen("_BIT", "", 1);
    (0..32).map(|bit| vk::SubgroupFeatureFlags::from_raw(1 << bit)).find(|flag| format!("{flag:?}") == name)
}

/// The table's alternatives against the registry's, as sets: the order
/// only chooses which one a refusal names.
fn compare(what: &str, table: &[Need], registry: &[Need], problems: &mut Vec<String>) {
    let duplicated = table.iter().enumerate().any(|(i, need)| table[..i].contains(need));
    let same = table.len() == registry.len() && table.iter().all(|need| registry.contains(need));
    if duplicated || !same {
        problems.push(format!("{what}: the table says {}, the registry says {}", show(table), show(registry)));
    }
}

fn show(needs: &[Need]) -> String {
    if needs.is_empty() {
        return "every device".to_owned();
    }
    let names: Vec<_> = needs
        .iter()
        .map(|&need| match need {
            Need::Feature(feature) => format!("{}::{}", feature.structure(), feature.name()),
            Need::Extension(extension) => extension.name().to_owned(),
            Need::Version(version) => format!("Vulkan 1.{}", vk::api_version_minor(version)),
            Need::Subgroup(operations) => format!("subgroup {operations:?}"),
            Need::Property(name) => format!("property {name}"),
        })
        .collect();
    names.join(" or ")
}

/// The registry's `<enable>`s, as it writes them.
fn raw(entries: &[&Entry]) -> String {
    let enables: Vec<_> = entries
        .iter()
        .flat_map(|entry| &entry.enables)
        .map(|enable| {
            let values: Vec<_> = enable.iter().filter(|(key, _)| *key != "requires").map(|&(_, value)| value).collect();
            values.join("::")
        })
        .collect();
    enables.join(" or ")
}

fn report(registry: &Registry, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "table.rs and names.rs disagree with {} (header {}) in {} places; the registry is right:\n{}",
        registry.path.display(),
        registry.header.map_or_else(|| "unknown".to_owned(), |header| header.to_string()),
        problems.len(),
        problems.join("\n"),
    );
}

/// A start, end or empty-element tag.
struct Tag {
    name: &'static str,
    attributes: Attributes,
    /// `</name>`.
    closing: bool,
}

/// The tags of `xml`, in order, past comments, declarations and text. The
/// registry is regular enough that this is all the XML the check needs.
fn tags(xml: &'static str) -> impl Iterator<Item = Tag> {
    let mut rest = xml;
    std::iter::from_fn(move || {
        loop {
            rest = &rest[rest.find('<')?..];
            if let Some(comment) = rest.strip_prefix("<!--") {
                rest = comment.split_once("-->").map_or("", |(_, after)| after);
                continue;
            }
            // A `>` may stand in a quoted attribute value.
            let mut quoted = false;
            let end = rest.find(|c| {
                quoted ^= c == '"';
                c == '>' && !quoted
            })?;
            let inside = &rest[1..end];
            rest = &rest[end + 1..];
            if inside.starts_with(['?', '!']) {
                continue;
            }
            let closing = inside.starts_with('/');
            let inside = inside.trim_start_matches('/').trim_end_matches('/');
            let (name, attributes) = inside.split_once(char::is_whitespace).unwrap_or((inside, ""));
            return Some(Tag { name, attributes: attributes_of(attributes), closing });
        }
    })
}

/// `key="value"` pairs.
fn attributes_of(mut text: &'static str) -> Attributes {
    let mut attributes = Vec::new();
    while let Some((key, after)) = text.split_once('=') {
        let Some((value, after)) = after.trim_start().strip_prefix('"').and_then(|v| v.split_once('"')) else {
            break;
        };
        attributes.push((key.trim(), value));
        text = after;
    }
    attributes
}
