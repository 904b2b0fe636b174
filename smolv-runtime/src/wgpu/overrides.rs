//! Spec constants as wgpu's pipeline-overridable constants, keyed by spec id in decimal.

use super::error::WgpuError;
use super::wgsl::WgslModule;
use crate::reflect::{Reflection, SpecConstant, SpecConstantType};
use crate::shader::Shader;
use smolv_codec::specialize::Value;

/// Values for a shader's spec constants, checked against its reflection, for
/// `wgpu::PipelineCompilationOptions::constants` (`@id(3)` is `"3"`).
///
/// ```
/// use smolv_runtime::wgpu::Overrides;
/// # let reflection = smolv_runtime::reflect::Reflection::from_spirv(&smolv_runtime::specialize::doc_ubershader())?;
/// // reflection: fragment.reflection()?, whose constant 0 is a bool
/// let mut overrides = Overrides::new(&reflection);
/// overrides.set(0, true)?;
/// let constants = overrides.constants();
/// assert_eq!(constants, [("0", 1.0)]);
/// let options = wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
/// # let _ = options;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Overrides {
    declared: Vec<SpecConstant>,
    /// `(id in decimal, value)`, by id.
    values: Vec<(u32, String, f64)>,
}

impl Overrides {
    /// No values yet for the spec constants `reflection` declares.
    ///
    /// ```
    /// use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// let overrides = smolv_runtime::wgpu::Overrides::new(&Reflection::new(ShaderStage::Compute, "main"));
    /// assert!(overrides.constants().is_empty());
    /// ```
    pub fn new(reflection: &Reflection) -> Self {
        Self { declared: reflection.spec_constants.clone(), values: Vec::new() }
    }

    /// No values yet for the spec constants of `shader` (or its shipped WGSL's overrides).
    ///
    /// ```
    /// # let set = smolv_runtime::shader::doc_example_raw_set();
    /// let overrides = smolv_runtime::wgpu::Overrides::of(set.get("blur.comp")?)?;
    /// assert!(overrides.constants().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(shader: &Shader) -> Result<Self, WgpuError> {
        let declared = match shader.wgsl()? {
            Some(text) => WgslModule::parse(shader.name(), &text)?.overrides(),
            None => shader.reflection()?.spec_constants,
        };
        Ok(Self { declared, values: Vec::new() })
    }

    /// Sets constant `id` to `value`; an undeclared id or a type overrides cannot hold is an error.
    ///
    /// ```
    /// # let reflection = smolv_runtime::reflect::Reflection::from_spirv(&smolv_runtime::specialize::doc_ubershader())?;
    /// let mut overrides = smolv_runtime::wgpu::Overrides::new(&reflection);
    /// overrides.set(0, false)?;
    /// assert!(overrides.set(9, 1u32).is_err(), "no constant 9");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set(&mut self, id: u32, value: impl Into<Value>) -> Result<&mut Self, WgpuError> {
        let declared = self.declared.iter().find(|c| c.id == id).ok_or_else(|| self.unknown(id.to_string()))?;
        let value = as_f64(declared, value.into())?;
        match self.values.binary_search_by_key(&id, |(i, _, _)| *i) {
            Ok(at) => self.values[at].2 = value,
            Err(at) => self.values.insert(at, (id, id.to_string(), value)),
        }
        Ok(self)
    }

    /// Sets the constant named `name` (where the build kept names).
    ///
    /// ```
    /// use smolv_runtime::reflect::{Reflection, ShaderStage, SpecConstant, SpecConstantType};
    /// let mut reflection = Reflection::new(ShaderStage::Compute, "main");
    /// reflection.spec_constants.push(SpecConstant { id: 4, ty: SpecConstantType::F32, default: 0, name: "GAIN".into() });
    /// let mut overrides = smolv_runtime::wgpu::Overrides::new(&reflection);
    /// overrides.set_named("GAIN", 0.5f32)?;
    /// assert_eq!(overrides.constants(), [("4", 0.5)]);
    /// # Ok::<(), smolv_runtime::wgpu::WgpuError>(())
    /// ```
    pub fn set_named(&mut self, name: &str, value: impl Into<Value>) -> Result<&mut Self, WgpuError> {
        let declared = self.declared.iter().find(|c| !c.name.is_empty() && c.name == name);
        let id = declared.map(|c| c.id).ok_or_else(|| self.unknown(format!("named `{name}`")))?;
        self.set(id, value)
    }

    /// Sets every `(id, value)`, such as `SpecConstants::values()`.
    ///
    /// ```
    /// # let reflection = smolv_runtime::reflect::Reflection::from_spirv(&smolv_runtime::specialize::doc_ubershader())?;
    /// use smolv_runtime::specialize::Value;
    /// let mut overrides = smolv_runtime::wgpu::Overrides::new(&reflection);
    /// overrides.set_all([(0, Value::Bool(true))])?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_all(&mut self, values: impl IntoIterator<Item = (u32, Value)>) -> Result<&mut Self, WgpuError> {
        for (id, value) in values {
            self.set(id, value)?;
        }
        Ok(self)
    }

    /// The values set, for `PipelineCompilationOptions::constants`.
    ///
    /// ```
    /// # let reflection = smolv_runtime::reflect::Reflection::from_spirv(&smolv_runtime::specialize::doc_ubershader())?;
    /// let mut overrides = smolv_runtime::wgpu::Overrides::new(&reflection);
    /// assert!(overrides.set(0, true)?.constants().contains(&("0", 1.0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn constants(&self) -> Vec<(&str, f64)> {
        self.values.iter().map(|(_, key, value)| (key.as_str(), *value)).collect()
    }

    fn unknown(&self, wanted: String) -> WgpuError {
        let shown =
            |c: &SpecConstant| if c.name.is_empty() { c.id.to_string() } else { format!("{} `{}`", c.id, c.name) };
        let known: Vec<String> = self.declared.iter().map(shown).collect();
        let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
        WgpuError::UnknownOverride { wanted, known }
    }
}

/// `value` as wgpu's `f64` for a constant of the declared type.
fn as_f64(declared: &SpecConstant, value: Value) -> Result<f64, WgpuError> {
    let refuse = |ty| WgpuError::OverrideType { id: declared.id, name: declared.name.clone(), ty };
    let bits = match value {
        Value::Bool(b) => return Ok(f64::from(u8::from(b))),
        Value::I32(v) => return Ok(f64::from(v)),
        Value::U32(v) => return Ok(f64::from(v)),
        Value::F32(v) => return Ok(f64::from(v)),
        Value::Bits(bits) => bits,
    };
    // Raw bits mean what the declared type says (the low 32 for 32-bit types).
    let low = u32::try_from(bits & 0xffff_ffff).unwrap_or(0);
    match declared.ty {
        SpecConstantType::Bool => Ok(f64::from(u8::from(bits != 0))),
        SpecConstantType::I32 => Ok(f64::from(i32::from_ne_bytes(low.to_ne_bytes()))),
        SpecConstantType::U32 => Ok(f64::from(low)),
        SpecConstantType::F32 => Ok(f64::from(f32::from_bits(low))),
        SpecConstantType::I64 => Err(refuse("i64")),
        SpecConstantType::U64 => Err(refuse("u64")),
        SpecConstantType::F64 => Err(refuse("f64")),
        _ => Err(refuse("a 16- or 8-bit type (give f16 values as Value::F32)")),
    }
}
