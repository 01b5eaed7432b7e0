//! `#[derive(Tree)]`: a user struct as a pytree of oxla, re-exported as `oxla::Tree`.
//!
//! The derive implements `oxla::Tree` for a struct whose fields are all trees (tensors,
//! tuples, `Vec`s, `Option`s, other derived structs), flattening the fields in declaration
//! order, and `oxla::tree::Args` with the whole struct as argument 0, so that the gradient
//! of a function of the struct is the struct. Its `TreeDef` is `TreeDef::Struct`, keeping
//! the type's and fields' names. Enums and unions are rejected.

#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::ext::IdentExt;
use syn::{parse_macro_input, parse_quote, Data, DeriveInput, Fields, Index};

/// Implements `oxla::Tree` and `oxla::tree::Args` for a struct of trees.
///
/// Named, tuple and unit structs, generic or not, are accepted; a generic struct is a tree
/// where each of its fields' types is one.
#[proc_macro_derive(Tree)]
pub fn derive_tree(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand(input: DeriveInput) -> syn::Result<TokenStream2> {
    let data = match &input.data {
        Data::Struct(s) => s,
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span,
                "#[derive(Tree)] supports structs only: an enum's leaves would depend on \
                 its variant, which a traced function cannot change (use `Option` or one \
                 struct per variant)",
            ))
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "#[derive(Tree)] supports structs only, not unions",
            ))
        }
    };
    let ident = &input.ident;
    let name = ident.unraw().to_string();
    let tree = quote!(::oxla::Tree);
    let def = quote!(::oxla::TreeDef);
    let tensor = quote!(::oxla::Tensor);

    // Each field: how to reach it, its name in the TreeDef, its type.
    let (members, names): (Vec<TokenStream2>, Vec<String>) = match &data.fields {
        Fields::Named(f) => f
            .named
            .iter()
            .map(|f| {
                let id = f.ident.as_ref().expect("a named field");
                (quote!(#id), id.unraw().to_string())
            })
            .unzip(),
        Fields::Unnamed(f) => (0..f.unnamed.len())
            .map(|i| {
                let idx = Index::from(i);
                (quote!(#idx), i.to_string())
            })
            .unzip(),
        Fields::Unit => (vec![], vec![]),
    };
    let types: Vec<&syn::Type> = data.fields.iter().map(|f| &f.ty).collect();
    let n = members.len();
    let positions: Vec<Index> = (0..n).map(Index::from).collect();

    let mut generics = input.generics.clone();
    if !generics.params.is_empty() {
        let wc = generics.make_where_clause();
        for ty in &types {
            wc.predicates.push(parse_quote!(#ty: #tree));
        }
    }
    let (impl_g, ty_g, where_c) = generics.split_for_impl();

    let rebuild = quote!(Self { #(#members: #tree::rebuild(&self.#members, leaves),)* });
    let from_def =
        quote!(Self { #(#members: <#types as #tree>::from_def(&fields[#positions].1, leaves)?,)* });

    Ok(quote! {
        impl #impl_g #tree for #ident #ty_g #where_c {
            fn flatten_into(&self, out: &mut ::std::vec::Vec<#tensor>) {
                #(#tree::flatten_into(&self.#members, out);)*
            }
            fn rebuild(&self, leaves: &mut dyn ::std::iter::Iterator<Item = #tensor>) -> Self {
                #rebuild
            }
            fn def(&self) -> #def {
                #def::Struct {
                    name: #name,
                    fields: ::std::vec![#((#names, #tree::def(&self.#members)),)*],
                }
            }
            fn from_def(
                def: &#def,
                leaves: &mut dyn ::std::iter::Iterator<Item = #tensor>,
            ) -> ::std::option::Option<Self> {
                let #def::Struct { name, fields } = def else {
                    return ::std::option::Option::None;
                };
                const NAMES: [&str; #n] = [#(#names),*];
                if *name != #name
                    || fields.len() != #n
                    || fields.iter().zip(NAMES).any(|((f, _), g)| *f != g)
                {
                    return ::std::option::Option::None;
                }
                ::std::option::Option::Some(#from_def)
            }
        }

        impl #impl_g ::oxla::tree::Args for #ident #ty_g #where_c {
            type First = Self;
        }
    })
}
